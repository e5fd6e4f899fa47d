import { createServer, type Server } from "node:http";
import type { Logger } from "pino";
import type { Services } from "../services/services.js";
import { healthHandler } from "./healthz.js";
import { metricsHandler } from "./metrics.js";
import { redactTokens, type HttpHandler } from "./route.js";

/**
 * A runner's HTTP surface (ROLE=runner): /healthz and /metrics for its probes and scrapes, and no
 * webhook route, status page or gates API (those are the app's).
 */
export async function startRunnerServer(services: Services, port: number, host: string | undefined, log: Pick<Logger, "error">): Promise<Server> {
  const handlers: HttpHandler[] = [redactTokens, healthHandler(services), metricsHandler(services)];
  const server = createServer((req, res) => {
    void (async () => {
      for (const handler of handlers) if (await handler(req, res)) return;
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 Not Found: a runner serves /healthz and /metrics only\n");
    })().catch((error: unknown) => {
      log.error({ err: error }, "runner HTTP handler failed");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host: host ?? "localhost" }, () => resolve());
  });
  return server;
}
