import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The browser session's cookie: set by POST /login, cleared by POST /logout. */
export const SESSION_COOKIE = "escalation_session";
/** How long a sign-in lasts. */
export const SESSION_SECONDS = 12 * 3600;

const SALT = "escalation/status-session";
const INFO = "session-hmac-sha256 v1";

/**
 * Signs and checks browser sessions: `v1.EXPIRES.NONCE.SIGNATURE`, an HMAC-SHA256 under a key
 * derived (HKDF) from ADMIN_TOKEN. The cookie is never the token itself, a copied cookie dies at
 * its expiry, and changing ADMIN_TOKEN ends every session at once.
 */
export class SessionKey {
  readonly #key: Buffer;

  constructor(adminToken: string) {
    this.#key = Buffer.from(hkdfSync("sha256", Buffer.from(adminToken, "utf8"), SALT, INFO, 32));
  }

  /** A new session's cookie value, valid for SESSION_SECONDS from `now` (ms). */
  issue(now = Date.now()): string {
    const body = `v1.${Math.floor(now / 1000) + SESSION_SECONDS}.${randomBytes(12).toString("base64url")}`;
    return `${body}.${this.#sign(body)}`;
  }

  /** Whether `value` is a session this key signed that has not expired at `now` (ms). */
  verify(value: string, now = Date.now()): boolean {
    const match = /^(v1\.(\d{1,12})\.[A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/.exec(value);
    if (!match) return false;
    const expected = Buffer.from(this.#sign(match[1]!), "utf8");
    const given = Buffer.from(match[3]!, "utf8");
    if (!timingSafeEqual(expected, given)) return false;
    return Number(match[2]) * 1000 > now;
  }

  #sign(body: string): string {
    return createHmac("sha256", this.#key).update(body).digest("base64url");
  }

  toJSON(): string {
    return "[session key]";
  }
}

/** The value of cookie `name` in the request, if it carries one. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie header of a session (`value`) or of its removal (undefined). Secure when the browser is on HTTPS. */
export function sessionCookie(value: string | undefined, secure: boolean): string {
  const attributes = ["Path=/", "HttpOnly", "SameSite=Strict", ...(secure ? ["Secure"] : [])];
  return value === undefined
    ? [`${SESSION_COOKIE}=`, "Max-Age=0", ...attributes].join("; ")
    : [`${SESSION_COOKIE}=${value}`, `Max-Age=${SESSION_SECONDS}`, ...attributes].join("; ");
}
