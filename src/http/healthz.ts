import type { Services } from "../services.js";
import { route, within, type HttpHandler } from "./route.js";

/**
 * GET /healthz: 200 when the gate store and every queue answer within 2 s, 503 otherwise.
 * The body names what failed and the queues' job counts, for a person looking at it.
 */
export function healthHandler(services: { gates: Pick<Services["gates"], "openGates">; queues: Pick<Services["queues"], "all"> }): HttpHandler {
  return route(["/healthz"], async (_req, res) => {
    const checks: Record<string, unknown> = {};
    let ok = true;
    try {
      await within(2000, "Redis", services.gates.openGates(1));
      checks.redis = "ok";
    } catch (error) {
      ok = false;
      checks.redis = (error as Error).message;
    }
    const queues: Record<string, unknown> = {};
    await Promise.all(
      services.queues.all().map(async (queue) => {
        try {
          queues[queue.name] = await within(2000, `queue ${queue.name}`, queue.getJobCounts("waiting", "active", "delayed", "failed"));
        } catch (error) {
          ok = false;
          queues[queue.name] = { error: (error as Error).message };
        }
      }),
    );
    res
      .writeHead(ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" })
      .end(JSON.stringify({ ok, ...(ok ? {} : { error: Object.values(checks).find((c) => c !== "ok") ?? "a queue is unreachable" }), ...checks, queues }));
  });
}
