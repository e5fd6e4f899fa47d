import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/env.js";
import { ConfigError } from "../../src/errors.js";
import { SecureLoop, WEBHOOK_SECRET } from "./support.js";

/** The variables an agent may see (README, "The agent contract"), plus the configured passthrough. */
const CONTRACT = [
  "GITHUB_TOKEN",
  "GITHUB_API_URL",
  "GITHUB_REPOSITORY",
  "ESCALATION_ISSUE",
  "ESCALATION_ROUND",
  "ESCALATION_TASK_FILE",
  "ESCALATION_ASK_FILE",
  "GITHUB_SERVER_URL",
  "ESCALATION_CHANNEL_URL",
  "ESCALATION_CHANNEL_TOKEN",
  "PATH",
];
const HARMLESS = ["HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"];

/**
 * Issue 7: the agent's environment is an allowlist, not the app's environment: PRIVATE_KEY,
 * WEBHOOK_SECRET, REDIS_URL (and the app's other secrets) never reach it, even when they are set in
 * the app's own environment; no configuration can pass them through.
 */
describe("security: the agent's environment", { timeout: 60_000 }, () => {
  let loop: SecureLoop | undefined;
  const saved = { ...process.env };
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it("the spawned agent sees the contract's variables and the passthrough, none of the app's secrets", async () => {
    loop = await SecureLoop.start({ env: { AGENT_ENV_PASSTHROUGH: "AGENT_API_KEY" } });
    const secrets: Record<string, string> = {
      PRIVATE_KEY: loop.sim.privateKey,
      PRIVATE_KEY_PATH: "/etc/escalation/app.pem",
      WEBHOOK_SECRET,
      STATE_SECRET: "state-secret-0123456789abcdef",
      REDIS_URL: loop.config.redisUrl,
      ADMIN_TOKEN: "admin-token-0123456789abcdef",
      METRICS_TOKEN: "metrics-token-0123456789abcdef",
      SLACK_BOT_TOKEN: "xoxb-0000000000-secret",
      AWS_SECRET_ACCESS_KEY: "aws-secret-from-the-app-env",
      GITHUB_TOKEN: "ghp_theAppsOwnTokenThatMustNotLeak000000",
    };
    Object.assign(process.env, secrets, { AGENT_API_KEY: "meant-for-the-agent" });

    const { issue } = await loop.dispatch("Env");
    const { env } = await loop.run(issue, 0);
    const allowed = new Set([...CONTRACT, ...HARMLESS, "AGENT_API_KEY"]);
    expect(Object.keys(env).filter((name) => !allowed.has(name))).toEqual([]);
    expect(env.AGENT_API_KEY).toBe("meant-for-the-agent");
    expect(env.GITHUB_TOKEN).toMatch(/^ghs_/);
    const everything = JSON.stringify(env);
    for (const [name, value] of Object.entries(secrets)) expect(everything, name).not.toContain(value);
    // The suite's private Redis has a password (.ci/run's own Redis has none): no line the app logged at trace level holds it.
    const redisPassword = decodeURIComponent(new URL(loop.config.redisUrl).password);
    if (redisPassword) expect(loop.logs.join("\n")).not.toContain(redisPassword);
  });

  it.each(["PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET", "STATE_SECRET", "REDIS_URL", "ADMIN_TOKEN", "METRICS_TOKEN", "SLACK_BOT_TOKEN"])(
    "AGENT_ENV_PASSTHROUGH may not name %s",
    (name) => {
      const env = {
        APP_ID: "1",
        WEBHOOK_SECRET: "s",
        PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----",
        AGENT_ENV_PASSTHROUGH: `HOME,${name}`,
      };
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(/AGENT_ENV_PASSTHROUGH: may not name the app's own secrets/);
    },
  );
});
