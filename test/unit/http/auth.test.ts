import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { AdminAuth, bearerToken, sameToken } from "../../../src/http/auth.js";
import { FailedLogins, formOrigin, safeNext } from "../../../src/http/login.js";
import { redactTokens, requestUrl } from "../../../src/http/route.js";
import { SESSION_COOKIE, SESSION_SECONDS, SessionKey, readCookie, sessionCookie } from "../../../src/http/session.js";

const TOKEN = "admin-token-0123456789abcdef";
const req = (url: string, headers: Record<string, string> = {}) => ({ url, headers, socket: {} }) as unknown as IncomingMessage;
const auth = new AdminAuth(TOKEN);
const check = (r: IncomingMessage, now?: number) => auth.check(r, requestUrl(r), now);
const withSession = (value: string) => req("/escalation", { cookie: `other=1; ${SESSION_COOKIE}=${value}` });

describe("admin auth", () => {
  it("accepts the token as a Bearer header, and a session the login form signed", () => {
    expect(check(req("/escalation", { authorization: `Bearer ${TOKEN}` }))).toEqual({ ok: true, via: "bearer" });
    expect(check(req("/escalation", { authorization: `bearer   ${TOKEN}` }))).toEqual({ ok: true, via: "bearer" });
    expect(check(withSession(auth.sessions!.issue()))).toEqual({ ok: true, via: "session" });
  });

  it("refuses a ?token= (400, saying to use the header or the form), even with the right token and a valid session", () => {
    for (const r of [
      req(`/escalation?token=${TOKEN}`),
      req(`/escalation?token=${TOKEN}`, { authorization: `Bearer ${TOKEN}`, cookie: `${SESSION_COOKIE}=${auth.sessions!.issue()}` }),
    ]) {
      expect(check(r)).toMatchObject({
        ok: false,
        status: 400,
        reason: "token in URL",
        message: expect.stringMatching(/not accepted.*Authorization: Bearer <ADMIN_TOKEN>, or sign in at \/login/),
      });
    }
  });

  it("says what to send when nothing is presented, and refuses wrong tokens, prefixes and other schemes", () => {
    expect(check(req("/escalation"))).toMatchObject({
      ok: false,
      status: 401,
      reason: "none",
      message: expect.stringContaining("Authorization: Bearer <ADMIN_TOKEN>, or sign in at /login"),
    });
    for (const authorization of ["Bearer wrong", `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`]) {
      expect(check(req("/escalation", { authorization }))).toMatchObject({ ok: false, status: 401, reason: "wrong" });
    }
    expect(check(req("/escalation", { authorization: `Basic ${Buffer.from(`a:${TOKEN}`).toString("base64")}` }))).toMatchObject({ ok: false, status: 401 });
    // The token itself as the cookie is no session.
    expect(check(withSession(TOKEN))).toMatchObject({ ok: false, status: 401, reason: "wrong" });
  });

  it("refuses a forged, tampered, foreign or expired session", () => {
    const now = Date.now();
    const good = auth.sessions!.issue(now);
    const [v, exp, nonce, sig] = good.split(".");
    const forged = [
      `${v}.${Number(exp) + 3600}.${nonce}.${sig}`, // expiry pushed out
      `${v}.${exp}.${nonce}.${sig!.slice(0, -1)}${sig!.endsWith("A") ? "B" : "A"}`, // signature changed
      new SessionKey("another-admin-token-0123456789").issue(now), // another server's key
      `${v}.${exp}.${nonce}.`,
      "",
    ];
    for (const value of forged) expect(check(withSession(value), now), value).toMatchObject({ ok: false, status: 401, reason: "wrong" });
    expect(check(withSession(good), now + SESSION_SECONDS * 1000 - 5000)).toMatchObject({ ok: true });
    expect(check(withSession(good), now + SESSION_SECONDS * 1000 + 1000)).toMatchObject({
      ok: false,
      status: 401,
      message: expect.stringContaining("sign in again"),
    });
  });

  it("is disabled (403) when ADMIN_TOKEN is unset, whatever is presented", () => {
    const off = new AdminAuth(undefined);
    expect(off.check(req("/escalation", { authorization: `Bearer ${TOKEN}` }), new URL("http://x/escalation"))).toMatchObject({
      ok: false,
      status: 403,
      message: expect.stringContaining("set ADMIN_TOKEN"),
    });
    expect(off.matches(TOKEN)).toBe(false);
  });

  it("compares by content, and reads Bearer headers and cookies exactly", () => {
    expect(sameToken("abc", "abc")).toBe(true);
    expect(sameToken("abc", "abd")).toBe(false);
    expect(sameToken("", "abc")).toBe(false);
    expect(bearerToken(req("/", { authorization: "Bearer a b" }))).toBeUndefined();
    expect(readCookie(req("/", { cookie: `x${SESSION_COOKIE}=1; ${SESSION_COOKIE}=v1.x` }), SESSION_COOKIE)).toBe("v1.x");
  });

  it("hides a ?token= value from the URL Probot's request logger prints", async () => {
    const r = req(`/escalation?repo=a%2Fb&token=${TOKEN}&x=1`);
    expect(await redactTokens(r, undefined as never)).toBe(false);
    expect(r.url).toBe("/escalation?repo=a%2Fb&token=[redacted]&x=1");
    expect(check(r)).toMatchObject({ ok: false, status: 400 });
    const plain = req("/healthz");
    await redactTokens(plain, undefined as never);
    expect(plain.url).toBe("/healthz");
  });
});

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Strict, Path=/, 12 hours, Secure only over HTTPS; never the token", () => {
    const value = auth.sessions!.issue();
    expect(value).not.toContain(TOKEN);
    expect(sessionCookie(value, false)).toBe(`${SESSION_COOKIE}=${value}; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict`);
    expect(sessionCookie(value, true)).toBe(`${SESSION_COOKIE}=${value}; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict; Secure`);
    expect(sessionCookie(undefined, false)).toBe(`${SESSION_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`);
    expect(JSON.stringify({ key: auth.sessions })).toBe('{"key":"[session key]"}');
  });
});

describe("the login form's checks", () => {
  it("only redirects to a path on this server", () => {
    expect(safeNext("/escalation?by=answerer")).toBe("/escalation?by=answerer");
    expect(safeNext("/escalation/api/gates#x")).toBe("/escalation/api/gates#x");
    for (const bad of [
      "//evil.example/x",
      "/\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "escalation",
      "/\t/evil.example",
      "",
      null,
      undefined,
      "/%2F%2Fevil.example",
    ]) {
      const next = safeNext(bad);
      expect(new URL(next, "http://self.invalid").origin, String(bad)).toBe("http://self.invalid");
      expect(next.startsWith("//")).toBe(false);
    }
    expect(safeNext("//evil.example/x")).toBe("/escalation");
  });

  it("accepts a form posted from this host only, Secure when the browser is on https", () => {
    expect(formOrigin(req("/login", { origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000" }))).toEqual({ ok: true, secure: false });
    expect(formOrigin(req("/login", { origin: "https://esc.example", host: "10.0.0.5:3000", "x-forwarded-host": "esc.example" }))).toEqual({
      ok: true,
      secure: true,
    });
    for (const headers of [
      { host: "127.0.0.1:3000" },
      { origin: "null", host: "127.0.0.1:3000" },
      { origin: "https://evil.example", host: "127.0.0.1:3000" },
      { origin: "http://127.0.0.1:3001", host: "127.0.0.1:3000" },
      { origin: "not a url", host: "x" },
    ] as Record<string, string>[]) {
      expect(formOrigin(req("/login", headers)), JSON.stringify(headers)).toMatchObject({
        ok: false,
        message: expect.stringContaining("Sign in with the form at /login"),
      });
    }
  });

  it("slows a client down after repeated failures, for a while", () => {
    const failures = new FailedLogins(3, 60_000, 2);
    const t = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(failures.retryAfter("a", t + i)).toBeUndefined();
      failures.record("a", t + i);
    }
    expect(failures.retryAfter("a", t + 10)).toBe(60);
    expect(failures.retryAfter("b", t + 10)).toBeUndefined();
    expect(failures.retryAfter("a", t + 60_001)).toBeUndefined();
    failures.record("b", t);
    failures.record("c", t);
    // Bounded: the least recently failing client was dropped.
    expect(failures.retryAfter("a", t + 10)).toBeUndefined();
  });
});
