import { LoopMetrics } from "../observe/metrics.js";
import type { Services } from "../services/services.js";
import { bearerToken, refuse, sameToken, tokenInUrl } from "./auth.js";
import { route, type HttpHandler } from "./route.js";

/**
 * GET /metrics: Prometheus text. Subscribes to the loop's events now. It holds counts, not prompts,
 * so it is not behind ADMIN_TOKEN: open by default, or behind `Authorization: Bearer METRICS_TOKEN`
 * when that is set (a scraper gets its own token, never the admin one).
 */
export function metricsHandler(
  services: Pick<Services, "config" | "events" | "gates" | "writeBudgetLog" | "log" | "queues">,
  metrics = new LoopMetrics(services, { queues: () => services.queues.all(), spawn: () => services.queues.spawn }),
): HttpHandler {
  const token = services.config.metricsToken;
  return route(["/metrics"], async (req, res, url) => {
    if (token !== undefined) {
      const refused = tokenInUrl(url, "METRICS_TOKEN");
      if (refused) return refuse(res, refused, "text");
      const given = bearerToken(req);
      if (given === undefined || !sameToken(given, token)) {
        return refuse(
          res,
          {
            ok: false,
            status: 401,
            reason: given === undefined ? "none" : "wrong",
            message: "/metrics needs Authorization: Bearer <METRICS_TOKEN> (in Prometheus: authorization: credentials_file).",
          },
          "text",
        );
      }
    }
    try {
      const text = await metrics.text();
      res.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" }).end(req.method === "HEAD" ? undefined : text);
    } catch (error) {
      services.log.warn({ err: error }, "metrics: could not collect");
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`# could not collect metrics: ${(error as Error).message}\n`);
    }
  });
}
