import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { SESSION_COOKIE, SessionKey, readCookie } from "./session.js";

/**
 * Why a request is refused: `disabled` (no token configured), `token in URL` (never accepted),
 * `none` (no credentials: a browser is sent to the login form), `wrong` (a bad token or session).
 */
export interface AuthRefusal {
  ok: false;
  status: 400 | 401 | 403;
  reason: "disabled" | "token in URL" | "none" | "wrong";
  message: string;
}
export type AdminCheck = { ok: true; via: "bearer" | "session" } | AuthRefusal;

export const LOGIN_PATH = "/login";
export const LOGOUT_PATH = "/logout";

/** The token of an `Authorization: Bearer TOKEN` header. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/** Compares in constant time (over digests, so the length does not leak either). */
export function sameToken(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * A `?token=` is refused, never read: a token in a URL lands in browser history, proxy logs and
 * bookmarks. The refusal says what to do instead and that the token should be treated as seen.
 */
export function tokenInUrl(url: URL, what: string): AuthRefusal | undefined {
  if (!url.searchParams.has("token")) return undefined;
  return {
    ok: false,
    status: 400,
    reason: "token in URL",
    message: `A token in the URL (?token=) is not accepted: URLs land in browser history and proxy logs. Send Authorization: Bearer <${what}>${what === "ADMIN_TOKEN" ? `, or sign in at ${LOGIN_PATH} in a browser` : ""}; and consider that token exposed, and change it.`,
  };
}

/** Guards the status page and its JSON: `Authorization: Bearer ADMIN_TOKEN`, or a session cookie from the login form. */
export class AdminAuth {
  readonly #token: string | undefined;
  readonly sessions: SessionKey | undefined;

  constructor(adminToken: string | undefined) {
    this.#token = adminToken;
    this.sessions = adminToken ? new SessionKey(adminToken) : undefined;
  }

  get enabled(): boolean {
    return this.#token !== undefined;
  }

  /** Whether `given` is the admin token (constant time). */
  matches(given: string): boolean {
    return this.#token !== undefined && sameToken(given, this.#token);
  }

  check(req: IncomingMessage, url: URL, now = Date.now()): AdminCheck {
    // The admin surfaces hold private prompts: no ADMIN_TOKEN configured means they are off.
    if (!this.#token || !this.sessions)
      return { ok: false, status: 403, reason: "disabled", message: "The status page is disabled: set ADMIN_TOKEN on the server to enable it." };
    const inUrl = tokenInUrl(url, "ADMIN_TOKEN");
    if (inUrl) return inUrl;
    const bearer = bearerToken(req);
    if (bearer !== undefined)
      return this.matches(bearer)
        ? { ok: true, via: "bearer" }
        : { ok: false, status: 401, reason: "wrong", message: "Wrong token: send Authorization: Bearer <ADMIN_TOKEN> with the server's ADMIN_TOKEN." };
    const session = readCookie(req, SESSION_COOKIE);
    if (session !== undefined) {
      return this.sessions.verify(session, now)
        ? { ok: true, via: "session" }
        : { ok: false, status: 401, reason: "wrong", message: `Your session has expired or is not valid: sign in again at ${LOGIN_PATH}.` };
    }
    return {
      ok: false,
      status: 401,
      reason: "none",
      message: `Authentication required: send Authorization: Bearer <ADMIN_TOKEN>, or sign in at ${LOGIN_PATH} in a browser.`,
    };
  }
}

/** Headers every admin response carries: never cached, never sniffed, never sending a referrer. */
export const PRIVATE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
} as const;

export function refuse(res: ServerResponse, check: AuthRefusal, as: "json" | "text"): void {
  const headers: Record<string, string> = { ...PRIVATE_HEADERS };
  if (check.status === 401) headers["www-authenticate"] = 'Bearer realm="escalation"';
  if (as === "json") {
    res.writeHead(check.status, { ...headers, "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ error: check.message }));
  } else {
    const title = { 400: "400 Bad Request", 401: "401 Unauthorized", 403: "403 Forbidden" }[check.status];
    res.writeHead(check.status, { ...headers, "content-type": "text/plain; charset=utf-8" }).end(`${title}: ${check.message}\n`);
  }
}
