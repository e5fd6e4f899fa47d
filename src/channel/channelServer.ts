import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChannelServer {
  /** http://127.0.0.1:PORT: what unsandboxed agents are given as ESCALATION_CHANNEL_URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * The round channel on a loopback port of its own, for agents that run unsandboxed
 * (AGENT_SANDBOX=none): never on the app's public port, and every request needs its round's
 * credential. Sandboxed agents reach the same handler through the egress proxy instead.
 */
export async function startChannelServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<ChannelServer> {
  const server = createServer(handle);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
