import { randomBytes } from "node:crypto";
import { openGatesReport, type OpenGatesReport } from "../observe/gateView.js";
import type { Services } from "../services/services.js";
import { LOGIN_PATH, PRIVATE_HEADERS, bearerToken, refuse, type AdminAuth } from "./auth.js";
import { reportQuery } from "./reportQuery.js";
import { route, within, type HttpHandler } from "./route.js";
import { STATUS_PAGE_PATH } from "./statusPage/pagePaths.js";
import { renderStatusPage } from "./statusPage/renderStatusPage.js";

/**
 * GET /escalation[?by=answerer][&answerer=LOGIN…]: the open gates as a page, for people signed in
 * at /login (or sending the Bearer token). Requires ADMIN_TOKEN.
 */
export function statusPageHandler(services: Pick<Services, "gates" | "issues" | "log" | "sandbox">, auth: AdminAuth): HttpHandler {
  return route([STATUS_PAGE_PATH], async (req, res, url) => {
    const check = auth.check(req, url);
    if (!check.ok) {
      // A browser without a (valid) session goes to the form and comes back here; a wrong Bearer token is a 401.
      if (check.reason === "none" || (check.reason === "wrong" && bearerToken(req) === undefined)) {
        res.writeHead(303, { ...PRIVATE_HEADERS, location: `${LOGIN_PATH}?next=${encodeURIComponent(url.pathname + url.search)}` }).end();
        return;
      }
      return refuse(res, check, "text");
    }
    const query = reportQuery(url);
    if ("error" in query) {
      res.writeHead(400, { ...PRIVATE_HEADERS, "content-type": "text/plain; charset=utf-8" }).end(`400: ${query.error}\n`);
      return;
    }
    let report: OpenGatesReport;
    try {
      report = await within(5000, "Redis", openGatesReport(services, query.options));
    } catch (error) {
      services.log.warn({ err: error }, "status page: could not read the open gates");
      res
        .writeHead(503, { ...PRIVATE_HEADERS, "content-type": "text/plain; charset=utf-8" })
        .end(`503: could not read the open gates: ${(error as Error).message}\n`);
      return;
    }
    const nonce = randomBytes(16).toString("base64");
    res
      .writeHead(200, {
        ...PRIVATE_HEADERS,
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
        "x-frame-options": "DENY",
      })
      .end(req.method === "HEAD" ? undefined : renderStatusPage(report, nonce, { mode: services.sandbox.mode, problem: services.sandbox.problem }));
  });
}
