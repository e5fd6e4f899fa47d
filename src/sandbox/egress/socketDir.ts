import { chmodSync, mkdirSync, rmSync } from "node:fs";
import type { Server } from "node:net";
import { dirname, join } from "node:path";
import { ConfigError } from "../../errors.js";

/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107;

/**
 * The sockets' directory: 0755 so the agent's user can reach the sockets, holding nothing else. A
 * missing parent (DATA_DIR) is created private (0700): only this directory is bound into the sandbox.
 */
export function prepareDirectory(dir: string): void {
  try {
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
  } catch (error) {
    throw new ConfigError(
      `Could not create the egress proxy's socket directory ${dir}: ${(error as Error).message}. Give the app's user ownership of DATA_DIR.`,
      { cause: error },
    );
  }
}

/** Listens on `dir/name` (a stale socket from a crash is replaced), usable by any user who can reach `dir`. */
export async function listenOn(server: Server, dir: string, name: string, maxConnections: number): Promise<void> {
  const path = join(dir, name);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    throw new ConfigError(
      `The egress proxy's socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes, the limit of a unix socket: set DATA_DIR to a shorter path.`,
    );
  }
  rmSync(path, { force: true });
  server.maxConnections = maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.removeListener("error", reject);
      resolve();
    });
  });
  // The agent may run as another user than the app (root starting the sandbox with a dropped uid).
  chmodSync(path, 0o666);
}
