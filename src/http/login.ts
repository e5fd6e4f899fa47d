import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { z } from "zod";
import { describeIssues } from "../errors.js";
import { LOGIN_PATH, LOGOUT_PATH, PRIVATE_HEADERS, tokenInUrl, type AdminAuth } from "./auth.js";
import { html, pageHead } from "./html.js";
import { requestUrl, type HttpHandler } from "./route.js";
import { readBody } from "./readBody.js";
import { sessionCookie } from "./session.js";

/** Where a sign-in lands when it was not sent from a page. */
export const HOME_PATH = "/escalation";
const MAX_FORM_BYTES = 8192;

/** The login form's fields. `next` is checked apart (safeNext): a bad one falls back to the status page. */
const LoginForm = z.object({
  token: z
    .string({ error: "is required: paste the server's ADMIN_TOKEN" })
    .trim()
    .min(1, "is required: paste the server's ADMIN_TOKEN")
    .max(1024, "is too long to be the ADMIN_TOKEN"),
  next: z.string().max(2048).optional(),
});

/**
 * A same-origin path to go to after signing in, or the status page: only `/path?query#hash` on
 * this server (never `//host`, `/\host` or `https://…`), so the form is no open redirect.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || !/^\/(?![/\\])[^\\\x00-\x1f\x7f]*$/.test(next)) return HOME_PATH;
  const base = "http://escalation.invalid";
  const url = new URL(next, base);
  return url.origin === base ? `${url.pathname}${url.search}${url.hash}` : HOME_PATH;
}

/**
 * A sign-in must come from this server's own form: the browser's Origin names this host (the Host
 * header, or X-Forwarded-Host from a proxy: a cross-site form can set neither). Together with
 * SameSite=Strict this keeps other sites from posting logins. An https Origin makes the cookie Secure.
 */
export function formOrigin(req: IncomingMessage): { ok: true; secure: boolean } | { ok: false; message: string } {
  const origin = req.headers.origin;
  const refused = (why: string) => ({ ok: false as const, message: `Sign in with the form at ${LOGIN_PATH} on this server: ${why}.` });
  if (!origin || origin === "null") return refused("the request names no origin");
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return refused(`its origin ${JSON.stringify(origin)} is not a URL`);
  }
  const hosts = [req.headers.host, ...String(req.headers["x-forwarded-host"] ?? "").split(",")].map((h) => h?.trim().toLowerCase()).filter(Boolean);
  if (!hosts.includes(url.host.toLowerCase())) return refused(`it came from ${url.origin}, another site`);
  return { ok: true, secure: url.protocol === "https:" || (req.socket as TLSSocket).encrypted === true };
}

/** Failed sign-ins per client address: past `max` within `windowMs`, further tries wait. In memory, per replica, bounded. */
export class FailedLogins {
  readonly #failures = new Map<string, number[]>();

  constructor(
    readonly max = 10,
    readonly windowMs = 10 * 60_000,
    readonly maxClients = 10_000,
  ) {}

  /** Seconds until `client` may try again, or undefined when it may now. */
  retryAfter(client: string, now = Date.now()): number | undefined {
    const recent = this.#recent(client, now);
    return recent.length >= this.max ? Math.max(1, Math.ceil((recent[0]! + this.windowMs - now) / 1000)) : undefined;
  }

  record(client: string, now = Date.now()): void {
    const recent = this.#recent(client, now);
    recent.push(now);
    this.#failures.delete(client);
    this.#failures.set(client, recent);
    // The least recently failing client goes first when the map is full.
    if (this.#failures.size > this.maxClients) this.#failures.delete(this.#failures.keys().next().value!);
  }

  clear(client: string): void {
    this.#failures.delete(client);
  }

  #recent(client: string, now: number): number[] {
    return (this.#failures.get(client) ?? []).filter((at) => at > now - this.windowMs);
  }
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:4rem auto;max-width:28rem;padding:0 1.5rem;color:#1f2328}
h1{font-size:1.4rem}label{display:block;font-weight:600;margin:.75rem 0 .25rem}input[type=password]{width:100%;box-sizing:border-box;padding:.4rem;font:inherit}
button{margin-top:1rem;padding:.4rem 1rem;font:inherit}.error{color:#cf222e}.meta{color:#59636e;font-size:.9rem}
`;

export function renderLoginPage(nonce: string, next: string, error?: string): string {
  return html`<!doctype html>
<html lang="en">
${pageHead({ title: "Escalation: sign in", referrer: "same-origin", nonce, style: STYLE })}
<body>
<h1>Sign in to the status page</h1>
${error ? html`<p id="login-error" class="error" role="alert">${error}</p>` : ""}
<form method="post" action="${LOGIN_PATH}">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<input type="hidden" name="next" value="${next}">
<button type="submit">Sign in</button>
</form>
<p class="meta">The server's <code>ADMIN_TOKEN</code>. Signing in sets a cookie for 12 hours; the token itself is never stored in the browser.</p>
</body>
</html>
`.value;
}

function sendLoginPage(res: ServerResponse, status: number, next: string, error?: string, extra: Record<string, string> = {}): void {
  const nonce = randomBytes(16).toString("base64");
  res
    .writeHead(status, {
      ...PRIVATE_HEADERS,
      // Same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` with the form, and formOrigin refuses it.
      "referrer-policy": "same-origin",
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      "x-frame-options": "DENY",
      ...extra,
    })
    .end(renderLoginPage(nonce, next, error));
}

function plain(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...PRIVATE_HEADERS, "content-type": "text/plain; charset=utf-8", ...extra }).end(`${text}\n`);
}

/**
 * GET /login: the form. POST /login (form-encoded `token`, `next`): a signed session cookie and a
 * 303 to `next`. POST /logout: the cookie cleared and a 303 to the form.
 */
export function loginHandler(auth: AdminAuth, failures = new FailedLogins()): HttpHandler {
  return async (req, res) => {
    const url = requestUrl(req);
    const path = url.pathname.replace(/\/+$/, "");
    if (path !== LOGIN_PATH && path !== LOGOUT_PATH) return false;
    if (path === LOGOUT_PATH) {
      if (req.method !== "POST") {
        plain(res, 405, "405 Method Not Allowed: sign out with POST /logout (the page's Sign out button).", { allow: "POST" });
        return true;
      }
      const origin = formOrigin(req);
      res.writeHead(303, { ...PRIVATE_HEADERS, location: LOGIN_PATH, "set-cookie": sessionCookie(undefined, origin.ok && origin.secure) }).end();
      return true;
    }
    if (!auth.enabled) {
      plain(res, 403, "403 Forbidden: The status page is disabled: set ADMIN_TOKEN on the server to enable it.");
      return true;
    }
    const inUrl = tokenInUrl(url, "ADMIN_TOKEN");
    if (inUrl) {
      plain(res, 400, `400 Bad Request: ${inUrl.message}`);
      return true;
    }
    if (req.method === "GET" || req.method === "HEAD") {
      sendLoginPage(res, 200, safeNext(url.searchParams.get("next")));
      return true;
    }
    if (req.method !== "POST") {
      plain(res, 405, "405 Method Not Allowed", { allow: "GET, HEAD, POST" });
      return true;
    }
    await login(auth, failures, req, res);
    return true;
  };
}

async function login(auth: AdminAuth, failures: FailedLogins, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const origin = formOrigin(req);
  if (!origin.ok) return plain(res, 403, `403 Forbidden: ${origin.message}`);
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers["content-type"] ?? "")) {
    return plain(res, 415, "415 Unsupported Media Type: post the login form (application/x-www-form-urlencoded).");
  }
  const body = await readBody(req, MAX_FORM_BYTES);
  if (body === undefined) return plain(res, 413, "413 Content Too Large: the login form is a token and a path.");
  const fields = new URLSearchParams(body);
  const parsed = LoginForm.safeParse({ token: fields.get("token") ?? undefined, next: fields.get("next") ?? undefined });
  const next = safeNext(parsed.success ? parsed.data.next : fields.get("next"));
  if (!parsed.success) return sendLoginPage(res, 400, next, describeIssues(parsed.error.issues));
  const client = req.socket.remoteAddress ?? "unknown";
  const wait = failures.retryAfter(client);
  if (wait !== undefined) return sendLoginPage(res, 429, next, `Too many failed sign-ins from here: try again in ${wait} s.`, { "retry-after": String(wait) });
  if (!auth.matches(parsed.data.token)) {
    failures.record(client);
    return sendLoginPage(res, 401, next, "Wrong token: paste the server's ADMIN_TOKEN.");
  }
  failures.clear(client);
  res.writeHead(303, { ...PRIVATE_HEADERS, location: next, "set-cookie": sessionCookie(auth.sessions!.issue(), origin.secure) }).end();
}
