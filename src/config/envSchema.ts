/**
 * The app's environment variables as one zod object: kept whole because one safeParse of it lists
 * every bad variable at once (loadConfig's ConfigError), which split schemas would not.
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { parseAllowList } from "../sandbox/egress/allowList.js";
import { RedisPrefixSchema } from "../redis/prefix.js";
import { RedisUrlSchema } from "../redis/redisUrl.js";
import { parseBytes } from "./byteSize.js";
import { duration, flag, flagDefaulting, label, list, unsetWhenEmpty } from "./envFields.js";

/** The app's secrets: no configuration may hand them to an agent. */
const NEVER_TO_AGENT = ["PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET", "STATE_SECRET", "REDIS_URL", "ADMIN_TOKEN", "METRICS_TOKEN", "SLACK_BOT_TOKEN"];

export const EnvSchema = z.object({
  APP_ID: z.string({ error: "is required: the numeric ID of your GitHub App" }).regex(/^\d+$/, "must be the App's numeric ID"),
  WEBHOOK_SECRET: z.string({ error: "is required: the secret set in the App's webhook settings" }).min(1),
  STATE_SECRET: unsetWhenEmpty(z.string().min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)")),
  PORT: z
    .string()
    .regex(/^\d+$/, "must be a port number")
    .refine((p) => Number(p) <= 65_535, "must be a port number from 0 to 65535")
    .default("3000"),
  HOST: z.string().optional(),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  GHE_HOST: z.string().optional(),
  GHE_PROTOCOL: z.enum(["http", "https"]).default("https"),
  ROLE: z.enum(["all", "app", "runner"], { error: "must be all, app or runner" }).default("all"),
  RUNNER_NAME: unsetWhenEmpty(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1 to 64 letters, digits or . _ -"),
  ),
  REDIS_URL: RedisUrlSchema.optional(),
  REDIS_PREFIX: RedisPrefixSchema,
  DATA_DIR: z.string().default("data"),
  AGENT_COMMAND: z.string().optional(),
  AGENT_PROFILES: z.string().optional(),
  AGENT_TIMEOUT: duration("AGENT_TIMEOUT", "30m"),
  AGENT_CONCURRENCY: z.string().regex(/^\d+$/).default("4").transform(Number).pipe(z.number().int().min(1).max(256)),
  AGENT_WORKDIR_ROOT: z.string().optional(),
  AGENT_KEEP_WORKDIR: flag,
  AGENT_ENV_PASSTHROUGH: list.refine((names) => !names.some((n) => NEVER_TO_AGENT.includes(n)), {
    message: `may not name the app's own secrets (${NEVER_TO_AGENT.join(", ")})`,
  }),
  AGENT_TOKEN_PERMISSIONS: z.string().default("contents:read,issues:read,pull_requests:read,metadata:read"),
  AGENT_KILL_GRACE: duration("AGENT_KILL_GRACE", "10s"),
  AGENT_LOGINS: list,
  AGENT_NETWORK_ALLOW: z
    .string()
    .default("")
    .transform((value, ctx) => {
      const { rules, errors } = parseAllowList(value);
      for (const message of errors) ctx.addIssue({ code: "custom", message });
      return errors.length > 0 ? z.NEVER : rules;
    }),
  AGENT_WORKSPACE: flagDefaulting("true"),
  AGENT_SANDBOX: unsetWhenEmpty(z.enum(["bwrap", "none"], { error: "must be bwrap or none" })),
  AGENT_SANDBOX_BIND: list.refine((paths) => paths.every((p) => isAbsolute(p)), { message: "must be a comma-separated list of absolute paths" }),
  WORKSPACE_ROOT: z.string().optional(),
  WORKSPACE_MAX_BYTES: z
    .string()
    .default("100M")
    .transform((value, ctx) => {
      const bytes = parseBytes(value);
      if (bytes === undefined) {
        ctx.addIssue({ code: "custom", message: `must be a size like 500000, 200K, 100M or 2G (got ${JSON.stringify(value)})` });
        return z.NEVER;
      }
      return bytes;
    }),
  WORKSPACE_MAX_FILES: z.string().regex(/^\d+$/, "must be a whole number").default("10000").transform(Number).pipe(z.number().int().min(1)),
  AGENT_MAX_ATTEMPTS: z.string().regex(/^\d+$/).default("3").transform(Number).pipe(z.number().int().min(1).max(20)),
  MAX_ROUNDS: z.string().regex(/^\d+$/).default("10").transform(Number).pipe(z.number().int().min(1).max(1000)),
  ANSWERER_MIN_PERMISSION: z.enum(["read", "triage", "write", "maintain", "admin"]).default("write"),
  REPO_CONFIG_CACHE_TTL: duration("REPO_CONFIG_CACHE_TTL", "60s"),
  RECONCILE_INTERVAL: z.string().default("5m"),
  RECONCILE_LOOKBACK: duration("RECONCILE_LOOKBACK", "24h"),
  AWAITING_LABEL: label("awaiting-human"),
  DISPATCH_LABEL: label("agent"),
  TASK_TEMPLATE: z.string().optional(),
  PERMISSION_CACHE_TTL: duration("PERMISSION_CACHE_TTL", "60s"),
  SHUTDOWN_GRACE: duration("SHUTDOWN_GRACE", "20s"),
  ADMIN_TOKEN: unsetWhenEmpty(z.string().trim().min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)")),
  METRICS_TOKEN: unsetWhenEmpty(
    z
      .string()
      .trim()
      .min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)")
      .regex(/^\S+$/, "must have no spaces (it is sent as a Bearer token)"),
  ),
  SLACK_BOT_TOKEN: unsetWhenEmpty(z.string().trim().min(1)),
  SLACK_CHANNEL: unsetWhenEmpty(z.string().trim().min(1).max(200)),
  SLACK_API_URL: z.string().url().default("https://slack.com/api/"),
  SLACK_TIMEOUT: duration("SLACK_TIMEOUT", "5s"),
  GITHUB_WRITES_PER_MINUTE: z.string().regex(/^\d+$/, "must be a whole number").default("40").transform(Number).pipe(z.number().int().min(1).max(1000)),
  GITHUB_WRITES_PER_HOUR: z.string().regex(/^\d+$/, "must be a whole number").default("300").transform(Number).pipe(z.number().int().min(1).max(100_000)),
  GITHUB_WRITE_MINUTE: duration("GITHUB_WRITE_MINUTE", "60s"),
  GITHUB_WRITE_HOUR: duration("GITHUB_WRITE_HOUR", "1h"),
  STATUS_DEBOUNCE: duration("STATUS_DEBOUNCE", "3s"),
});
