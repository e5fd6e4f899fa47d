import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/env.js";
import { ConfigError } from "../../../src/errors.js";

const { privateKey: PEM } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
});
const minimal = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ APP_ID: "1", WEBHOOK_SECRET: "s", PRIVATE_KEY: PEM, ...over });

describe("loadConfig: the status page and the Slack mirror", () => {
  it("leaves both off by default, and an empty value means unset", () => {
    expect(loadConfig(minimal())).toMatchObject({ adminToken: undefined, slack: undefined });
    expect(loadConfig(minimal({ ADMIN_TOKEN: "", SLACK_BOT_TOKEN: " ", SLACK_CHANNEL: "" }))).toMatchObject({ adminToken: undefined, slack: undefined });
  });

  it("reads ADMIN_TOKEN and refuses a short one", () => {
    expect(loadConfig(minimal({ ADMIN_TOKEN: "0123456789abcdef" })).adminToken).toBe("0123456789abcdef");
    expect(() => loadConfig(minimal({ ADMIN_TOKEN: "short" }))).toThrow(/ADMIN_TOKEN: must be at least 16 characters/);
  });

  it("reads METRICS_TOKEN (unset leaves /metrics open) and refuses a short one or one with spaces", () => {
    expect(loadConfig(minimal()).metricsToken).toBeUndefined();
    expect(loadConfig(minimal({ METRICS_TOKEN: " " })).metricsToken).toBeUndefined();
    expect(loadConfig(minimal({ METRICS_TOKEN: " scrape-token-0123456789 " })).metricsToken).toBe("scrape-token-0123456789");
    expect(() => loadConfig(minimal({ METRICS_TOKEN: "short" }))).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
    expect(() => loadConfig(minimal({ METRICS_TOKEN: "scrape token 0123456789" }))).toThrow(/METRICS_TOKEN: must have no spaces/);
  });

  it("turns the mirror on with a token and a channel, with a default API URL and timeout", () => {
    expect(loadConfig(minimal({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_CHANNEL: "C0123" })).slack).toEqual({
      token: "xoxb-1",
      channel: "C0123",
      apiUrl: "https://slack.com/api/",
      timeoutMs: 5000,
    });
    expect(
      loadConfig(minimal({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_CHANNEL: "C0123", SLACK_API_URL: "http://127.0.0.1:9/api", SLACK_TIMEOUT: "2s" })).slack,
    ).toMatchObject({
      apiUrl: "http://127.0.0.1:9/api/",
      timeoutMs: 2000,
    });
  });

  it("refuses half a Slack configuration and bad values", () => {
    expect(() => loadConfig(minimal({ SLACK_BOT_TOKEN: "xoxb-1" }))).toThrow(ConfigError);
    expect(() => loadConfig(minimal({ SLACK_CHANNEL: "C0123" }))).toThrow(/needs both SLACK_BOT_TOKEN and SLACK_CHANNEL/);
    expect(() => loadConfig(minimal({ SLACK_BOT_TOKEN: "x", SLACK_CHANNEL: "C", SLACK_TIMEOUT: "soon" }))).toThrow(/SLACK_TIMEOUT/);
    expect(() => loadConfig(minimal({ SLACK_BOT_TOKEN: "x", SLACK_CHANNEL: "C", SLACK_API_URL: "not a url" }))).toThrow(/SLACK_API_URL/);
  });
});
