import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { ConfigError } from "../errors.js";

export interface PrivateRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** Directory for the append-only file; omit for a throw-away in-memory server. */
  dataDir?: string;
  port?: number;
}

/** Asks the kernel for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * Starts a redis-server of our own on a free loopback port, so nobody's running Redis is touched.
 * Used by `npm start` and `npm run demo` when REDIS_URL is unset, and by the test suite.
 */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  // A gate's hash holds its ask as JSON, longer than Redis's default 64-byte limit for the compact
  // (listpack) encoding: with 1024 a parked gate costs about a third less (README, "Bringing your
  // own Redis"). The older ziplist name is the one Redis 6 knows too; Redis 7 reads it as
  // hash-max-listpack-value.
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--protected-mode", "yes", "--hash-max-ziplist-value", "1024"];
  if (options.dataDir) {
    const dir = resolve(options.dataDir);
    mkdirSync(dir, { recursive: true });
    args.push("--dir", dir, "--appendonly", "yes", "--appendfsync", "everysec");
  } else {
    args.push("--appendonly", "no");
  }
  let child: ChildProcess;
  try {
    child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    throw missingRedis(error);
  }
  const output: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", (code) => resolveExit(code)));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new ConfigError(`redis-server did not start on port ${port} within 10s:\n${output.join("")}`)), 10_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      fail(missingRedis(error));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new ConfigError(`redis-server exited with code ${code} before it was ready:\n${output.join("")}`));
    });
    child.stdout?.on("data", () => {
      if (output.join("").includes("Ready to accept connections")) {
        clearTimeout(timer);
        ready();
      }
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        // A stuck server must not hang shutdown: SIGKILL after 5 s.
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

function missingRedis(cause: unknown): ConfigError {
  return new ConfigError(
    "No redis-server on PATH and REDIS_URL is unset: install Redis (Debian: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:6379.",
    { cause },
  );
}
