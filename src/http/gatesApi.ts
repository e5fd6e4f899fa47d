import { openGatesReport } from "../observe/gateView.js";
import type { Services } from "../services.js";
import { PRIVATE_HEADERS, checkAdmin, refuse } from "./auth.js";
import { route, within, type HttpHandler } from "./route.js";

export const GATES_API_PATH = "/escalation/api/gates";

/** GET /escalation/api/gates[?repo=OWNER/REPO]: the JSON twin of the status page (and of `escalate status --json`). */
export function gatesApiHandler(services: Services): HttpHandler {
  return route([GATES_API_PATH], async (req, res, url) => {
    const check = checkAdmin(req, url, services.config.adminToken);
    if (!check.ok) return refuse(res, check, "json");
    const json = { ...PRIVATE_HEADERS, "content-type": "application/json; charset=utf-8" };
    try {
      const report = await within(5000, "Redis", openGatesReport(services.store, { repo: url.searchParams.get("repo") ?? undefined }));
      res.writeHead(200, json).end(req.method === "HEAD" ? undefined : JSON.stringify(report));
    } catch (error) {
      services.log.warn({ err: error }, "gates API: could not read the open gates");
      res.writeHead(503, json).end(JSON.stringify({ error: `could not read the open gates: ${(error as Error).message}` }));
    }
  });
}
