import { DEFAULT_WRITE_WINDOWS, WriteBudget } from "../github/writeBudget.js";
import { openGatesReport } from "../observe/gateView.js";
import type { Services } from "../services/services.js";
import { PRIVATE_HEADERS, refuse, type AdminAuth } from "./auth.js";
import { reportQuery } from "./reportQuery.js";
import { route, within, type HttpHandler } from "./route.js";

export const GATES_API_PATH = "/escalation/api/gates";

/**
 * GET /escalation/api/gates[?repo=OWNER/REPO][&by=answerer][&answerer=LOGIN…]: the JSON twin of the
 * status page (and of `escalate status --json`), for a Bearer token or the page's session cookie.
 */
export function gatesApiHandler(services: Pick<Services, "gates" | "issues" | "log" | "sandbox" | "config" | "writeBudgetLog">, auth: AdminAuth): HttpHandler {
  return route([GATES_API_PATH], async (req, res, url) => {
    const check = auth.check(req, url);
    if (!check.ok) return refuse(res, check, "json");
    const json = { ...PRIVATE_HEADERS, "content-type": "application/json; charset=utf-8" };
    const query = reportQuery(url);
    if ("error" in query) {
      res.writeHead(400, json).end(JSON.stringify({ error: query.error }));
      return;
    }
    try {
      const report = await within(5000, "Redis", openGatesReport(services, query.options));
      const github = await within(5000, "Redis", githubWritesReport(services));
      res
        .writeHead(200, json)
        .end(
          req.method === "HEAD"
            ? undefined
            : JSON.stringify({ ...report, github, sandbox: { mode: services.sandbox.mode, problem: services.sandbox.problem ?? null } }),
        );
    } catch (error) {
      services.log.warn({ err: error }, "gates API: could not read the open gates");
      res.writeHead(503, json).end(JSON.stringify({ error: `could not read the open gates: ${(error as Error).message}` }));
    }
  });
}

/** The write budget, and the installations GitHub's secondary rate limit has paused (their feedback waits; spawns do not). */
export interface GitHubWritesReport {
  budget: { perMinute: number; perHour: number };
  paused: Array<{ installationId: number; secondsLeft: number }>;
}

export async function githubWritesReport(services: Pick<Services, "config" | "writeBudgetLog">): Promise<GitHubWritesReport> {
  const windows = services.config.githubWrites ?? DEFAULT_WRITE_WINDOWS;
  return { budget: { perMinute: windows.perMinute, perHour: windows.perHour }, paused: await new WriteBudget(services.writeBudgetLog, windows).paused() };
}
