import { LoopMetrics } from "../observe/metrics.js";
import type { Services } from "../services.js";
import { loopQueues } from "./healthz.js";
import { route, type HttpHandler } from "./route.js";

/**
 * GET /metrics: Prometheus text. Subscribes to the loop's events now; it holds counts, not prompts,
 * so it is not behind ADMIN_TOKEN (restrict it at the network level if needed).
 */
export function metricsHandler(services: Services, metrics = new LoopMetrics(services, { queues: () => loopQueues(services) })): HttpHandler {
  return route(["/metrics"], async (req, res) => {
    try {
      const text = await metrics.text();
      res.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" }).end(req.method === "HEAD" ? undefined : text);
    } catch (error) {
      services.log.warn({ err: error }, "metrics: could not collect");
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`# could not collect metrics: ${(error as Error).message}\n`);
    }
  });
}
