import { connectedRunners } from "../queue/spawnQueue.js";
import type { Services } from "../services/services.js";
import { route, within, type HttpHandler } from "./route.js";

/**
 * GET /healthz: 200 when the gate store and every queue answer within 2 s, 503 otherwise.
 * The body names what failed, the queues' job counts, this process's role (and runner name when it
 * runs agents) and the runners connected to the spawn queue, for a person looking at it.
 */
export function healthHandler(services: {
  config: Pick<Services["config"], "role" | "runnerName">;
  gates: Pick<Services["gates"], "openGates">;
  queues: Pick<Services["queues"], "all" | "spawn">;
}): HttpHandler {
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
    const { role, runnerName } = services.config;
    // Undefined when Redis will not list its clients.
    const runners = await within(2000, "the runners", connectedRunners(services.queues.spawn)).catch(() => undefined);
    res.writeHead(ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" }).end(
      JSON.stringify({
        ok,
        ...(ok ? {} : { error: Object.values(checks).find((c) => c !== "ok") ?? "a queue is unreachable" }),
        ...checks,
        role,
        ...(role === "app" ? {} : { runner: runnerName }),
        ...(runners ? { runners } : {}),
        queues,
      }),
    );
  });
}
