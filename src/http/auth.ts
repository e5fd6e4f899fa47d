import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export type AdminCheck = { ok: true } | { ok: false; status: 401 | 403; message: string };

/** The token a request presents: `Authorization: Bearer TOKEN`, else `?token=TOKEN`. */
export function presentedToken(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization;
  const bearer = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  return bearer ?? url.searchParams.get("token") ?? undefined;
}

/** Compares in constant time (over digests, so the length does not leak either). */
export function sameToken(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The admin surfaces hold private prompts: no ADMIN_TOKEN configured means they are off. */
export function checkAdmin(req: IncomingMessage, url: URL, adminToken: string | undefined): AdminCheck {
  if (!adminToken) return { ok: false, status: 403, message: "The status page is disabled: set ADMIN_TOKEN on the server to enable it." };
  const given = presentedToken(req, url);
  if (!given) return { ok: false, status: 401, message: "A token is required: send Authorization: Bearer <ADMIN_TOKEN> or add ?token=<ADMIN_TOKEN>." };
  if (!sameToken(given, adminToken)) return { ok: false, status: 401, message: "Wrong token." };
  return { ok: true };
}

/** Headers every admin response carries: never cached, never leaking the URL (and its token) as a referrer. */
export const PRIVATE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
} as const;

export function refuse(res: ServerResponse, check: Exclude<AdminCheck, { ok: true }>, as: "json" | "text"): void {
  const headers: Record<string, string> = { ...PRIVATE_HEADERS };
  if (check.status === 401) headers["www-authenticate"] = 'Bearer realm="escalation"';
  if (as === "json") {
    res.writeHead(check.status, { ...headers, "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ error: check.message }));
  } else {
    res.writeHead(check.status, { ...headers, "content-type": "text/plain; charset=utf-8" }).end(`${check.status === 401 ? "401 Unauthorized" : "403 Forbidden"}: ${check.message}\n`);
  }
}
