import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { checkAdmin, presentedToken, sameToken } from "../../../src/http/auth.js";
import { redactTokens, requestUrl } from "../../../src/http/route.js";

const TOKEN = "admin-token-0123456789abcdef";
const req = (url: string, authorization?: string) => ({ url, headers: authorization ? { authorization } : {} }) as IncomingMessage;
const check = (r: IncomingMessage, ...token: [string | undefined] | []) => checkAdmin(r, requestUrl(r), token.length > 0 ? token[0] : TOKEN);

describe("admin token", () => {
  it("accepts the token as a Bearer header or as ?token=", () => {
    expect(check(req("/escalation", `Bearer ${TOKEN}`))).toEqual({ ok: true });
    expect(check(req("/escalation", `bearer   ${TOKEN}`))).toEqual({ ok: true });
    expect(check(req(`/escalation?token=${TOKEN}`))).toEqual({ ok: true });
  });

  it("refuses 401 without a token, with a wrong one, a prefix of it or another scheme", () => {
    for (const r of [
      req("/escalation"),
      req("/escalation", "Bearer wrong"),
      req(`/escalation?token=${TOKEN.slice(0, -1)}`),
      req(`/escalation?token=${TOKEN}x`),
      req("/escalation", `Basic ${Buffer.from(`a:${TOKEN}`).toString("base64")}`),
    ]) {
      const result = check(r);
      expect(result.ok).toBe(false);
      expect(result).toMatchObject({ status: 401 });
    }
  });

  it("is disabled (403) when ADMIN_TOKEN is unset, whatever is presented", () => {
    expect(check(req(`/escalation?token=${TOKEN}`), undefined)).toMatchObject({ ok: false, status: 403, message: expect.stringContaining("set ADMIN_TOKEN") });
  });

  it("prefers the header to the query", () => {
    expect(presentedToken(req("/x?token=q", "Bearer h"), new URL("http://x/x?token=q"))).toBe("h");
  });

  it("compares by content", () => {
    expect(sameToken("abc", "abc")).toBe(true);
    expect(sameToken("abc", "abd")).toBe(false);
    expect(sameToken("", "abc")).toBe(false);
  });

  it("hides a ?token= value from the URL Probot's request logger prints, keeping it for the routes", async () => {
    const r = req(`/escalation?repo=a%2Fb&token=${TOKEN}&x=1`);
    expect(await redactTokens(r, undefined as never)).toBe(false);
    expect(r.url).toBe("/escalation?repo=a%2Fb&token=[redacted]&x=1");
    expect(requestUrl(r).searchParams.get("token")).toBe(TOKEN);
    expect(check(r)).toEqual({ ok: true });
    const plain = req("/healthz");
    await redactTokens(plain, undefined as never);
    expect(plain.url).toBe("/healthz");
  });
});
