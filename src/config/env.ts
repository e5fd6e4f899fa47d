import { getPrivateKey } from "@probot/get-private-key";
import { isAbsolute, resolve } from "node:path";
import { tmpdir } from "node:os";
import { z } from "zod";
import type { PermissionLevel } from "../domain.js";
import { ConfigError, describeIssues } from "../errors.js";
import { parseDuration } from "../protocol/duration.js";
import { RECIPES, type AgentRecipe } from "../agent/recipes/index.js";
import { fillPlaceholders, splitCommand } from "./splitCommand.js";
import { projectRoot } from "./projectRoot.js";
import { parseAllowList, type AllowRule } from "../sandbox/egress/allowList.js";
import { StateKey } from "../protocol/stateKey.js";
import { RedisPrefixSchema } from "../redis/prefix.js";
import { RedisUrlSchema } from "../redis/redisUrl.js";

/** The placeholders AGENT_COMMAND may use; filled per spawn. */
export const AGENT_PLACEHOLDERS = ["taskFile", "repo", "issue", "round", "workdir"] as const;

export interface AppConfig {
  appId: number;
  privateKey: string;
  webhookSecret: string;
  /** Signs the state the app writes into comments; from STATE_SECRET, else derived from WEBHOOK_SECRET. */
  stateKey: StateKey;
  port: number;
  host: string | undefined;
  logLevel: "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";
  /** GitHub's REST base, e.g. https://api.github.com or http://127.0.0.1:3001/api/v3 */
  baseUrl: string;
  /** GitHub's web and git host, e.g. https://github.com or http://127.0.0.1:3001 (GITHUB_SERVER_URL for agents). */
  serverUrl: string;
  redisUrl: string | undefined;
  redisPrefix: string;
  dataDir: string;
  agent: {
    command: string[] | undefined;
    /** Named commands (AGENT_PROFILES) a repository may pick with `agent_profile`; argv templates like `command`. */
    profiles: ReadonlyMap<string, string[]>;
    /** The profiles given as `{"recipe": name}`: the recipe that sets their tool up each round (src/agent/recipes/). */
    profileRecipes: ReadonlyMap<string, AgentRecipe>;
    timeoutSeconds: number;
    concurrency: number;
    workdirRoot: string;
    keepWorkdir: boolean;
    envPassthrough: string[];
    tokenPermissions: Record<string, "read" | "write">;
    killGraceSeconds: number;
    maxAttempts: number;
    /** AGENT_NETWORK_ALLOW: hosts the sandboxed agent may reach through the egress proxy besides GitHub (src/sandbox/egress/). */
    networkAllow: AllowRule[];
  };
  /** The agent's checkout of the repository (src/workspace/); a repository may turn it off. */
  workspace: {
    enabled: boolean;
    /** Per-issue checkouts and per-repository object caches live here, kept until their work is pushed. */
    root: string;
    /** Limits on what one round may leave uncommitted: bytes and files changed. */
    maxBytes: number;
    maxFiles: number;
  };
  maxRounds: number;
  answererMinPermission: PermissionLevel;
  repoConfigCacheSeconds: number;
  /** Seconds between reconciliation runs; undefined when RECONCILE_INTERVAL=off. */
  reconcileIntervalSeconds: number | undefined;
  reconcileLookbackSeconds: number;
  labels: { awaiting: string; dispatch: string };
  agentLogins: string[];
  taskTemplatePath: string;
  permissionCacheSeconds: number;
  shutdownGraceSeconds: number;
  /** Bearer token for the status page and its JSON API (and the key of its login sessions); unset disables both. */
  adminToken?: string;
  /** Bearer token /metrics requires when set; unset leaves /metrics open. */
  metricsToken?: string;
  /**
   * The budget of content-creating GitHub writes (comments, reactions, labels, edits) per
   * installation, over sliding windows of `minuteMs` and `hourMs` (a minute and an hour, except in tests).
   */
  githubWrites: { perMinute: number; perHour: number; minuteMs: number; hourMs: number };
  /** A status-comment render waits this long after its first line, so quick transitions become one edit. */
  statusDebounceMs: number;
  /** How agents are confined (src/sandbox/): bubblewrap, or not at all; `binds` are extra host paths shown read-only. */
  sandbox: { mode: "bwrap" | "none"; binds: string[] };
  /** The Slack mirror; undefined unless SLACK_BOT_TOKEN and SLACK_CHANNEL are both set. */
  slack?: SlackConfig;
}

export interface SlackConfig {
  token: string;
  channel: string;
  /** Web API base, ending in "/". */
  apiUrl: string;
  timeoutMs: number;
}

const duration = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      try {
        return parseDuration(value, name);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    });

const list = z
  .string()
  .default("")
  .transform((value) => value.split(",").map((v) => v.trim()).filter(Boolean));

const flagDefaulting = (fallback: "true" | "false") =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off|)$/i.test(v)) return false;
      ctx.addIssue({ code: "custom", message: `must be true or false (got ${JSON.stringify(v)})` });
      return z.NEVER;
    });
const flag = flagDefaulting("false");

/** An optional variable where an empty value (`ADMIN_TOKEN=` in a .env file) means unset. */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

const label = (fallback: string) => z.string().trim().min(1).max(50).default(fallback);

/** The app's secrets: no configuration may hand them to an agent. */
const NEVER_TO_AGENT = ["PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET", "STATE_SECRET", "REDIS_URL", "ADMIN_TOKEN", "METRICS_TOKEN", "SLACK_BOT_TOKEN"];

const EnvSchema = z.object({
  APP_ID: z.string({ error: "is required: the numeric ID of your GitHub App" }).regex(/^\d+$/, "must be the App's numeric ID"),
  WEBHOOK_SECRET: z.string({ error: "is required: the secret set in the App's webhook settings" }).min(1),
  STATE_SECRET: unsetWhenEmpty(z.string().min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)")),
  PORT: z.string().regex(/^\d+$/, "must be a port number").refine((p) => Number(p) <= 65_535, "must be a port number from 0 to 65535").default("3000"),
  HOST: z.string().optional(),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  GHE_HOST: z.string().optional(),
  GHE_PROTOCOL: z.enum(["http", "https"]).default("https"),
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
  AGENT_TOKEN_PERMISSIONS: z.string().default("issues:write,metadata:read"),
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
  WORKSPACE_MAX_BYTES: z.string().default("100M").transform((value, ctx) => {
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
  METRICS_TOKEN: unsetWhenEmpty(z.string().trim().min(16, "must be at least 16 characters (e.g. `openssl rand -hex 32`)").regex(/^\S+$/, "must have no spaces (it is sent as a Bearer token)")),
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

/** Bytes of a size: plain bytes, or with K, M or G (powers of 1024). */
function parseBytes(text: string): number | undefined {
  const match = /^(\d+)\s*([KMG]?)i?B?$/i.exec(text.trim());
  if (!match) return undefined;
  const power = { "": 0, K: 1, M: 2, G: 3 }[match[2]!.toUpperCase() as "" | "K" | "M" | "G"];
  return Number(match[1]) * 1024 ** power;
}

function parsePermissions(text: string): Record<string, "read" | "write"> {
  const out: Record<string, "read" | "write"> = {};
  for (const pair of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const [name, level] = pair.split(":").map((p) => p.trim());
    if (!name || !/^[a-z_]+$/.test(name) || (level !== "read" && level !== "write")) {
      throw new ConfigError(`AGENT_TOKEN_PERMISSIONS: "${pair}" must look like issues:write or contents:read.`);
    }
    out[name] = level;
  }
  return out;
}

/** What `agent_profile` in a repository's `.github/escalation.yml` may name (src/config/repoConfig.ts). */
export const PROFILE_NAME = /^[a-z0-9_-]{1,40}$/;

const RecipeProfile = z.object({ recipe: z.string() }).strict();

/** The recipe a profile given as `{"recipe": name}` names. */
function recipeOf(value: unknown, what: string): AgentRecipe {
  const parsed = RecipeProfile.safeParse(value);
  if (!parsed.success) throw new ConfigError(`${what} must be a command string or a JSON array of argv words, or {"recipe": "<name>"} (README, "Recipes").`);
  const recipe = RECIPES.get(parsed.data.recipe);
  if (!recipe) {
    const known = [...RECIPES.keys()].map((r) => `"${r}"`).join(", ");
    throw new ConfigError(`${what} names the recipe ${JSON.stringify(parsed.data.recipe)}, which does not exist; the recipes are ${known}.`);
  }
  return recipe;
}

/**
 * AGENT_PROFILES: a JSON object mapping a profile name to a command, either a template split
 * without a shell like AGENT_COMMAND or a JSON array of argv words, or to `{"recipe": name}`, a
 * ready command for a known coding agent. Each is checked like AGENT_COMMAND at start-up
 * (quoting, placeholders).
 */
function parseProfiles(text: string | undefined): { profiles: Map<string, string[]>; recipes: Map<string, AgentRecipe> } {
  const profiles = new Map<string, string[]>();
  const recipes = new Map<string, AgentRecipe>();
  if (text === undefined || text.trim() === "") return { profiles, recipes };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`AGENT_PROFILES must be a JSON object like {"fast": "my-agent --fast {taskFile}"}: ${(error as Error).message}`, { cause: error });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('AGENT_PROFILES must be a JSON object like {"fast": "my-agent --fast {taskFile}"} mapping names to commands.');
  }
  for (const [name, value] of Object.entries(parsed)) {
    const what = `AGENT_PROFILES.${name}`;
    if (!PROFILE_NAME.test(name)) throw new ConfigError(`${what}: a profile name must be 1-40 lowercase letters, digits, _ or -.`);
    let argv: string[];
    if (typeof value === "string") argv = splitCommand(value, what);
    else if (Array.isArray(value)) argv = splitCommand(JSON.stringify(value), what);
    else {
      const recipe = recipeOf(value, what);
      recipes.set(name, recipe);
      argv = [...recipe.argv];
    }
    if (!recipes.has(name)) fillPlaceholders(argv, Object.fromEntries(AGENT_PLACEHOLDERS.map((p) => [p, p])), what);
    profiles.set(name, argv);
  }
  return { profiles, recipes };
}

/** AGENT_SANDBOX: bubblewrap by default on Linux; elsewhere running agents unsandboxed must be chosen. */
function sandboxMode(value: "bwrap" | "none" | undefined, platform: NodeJS.Platform): "bwrap" | "none" {
  if (value) return value;
  if (platform === "linux") return "bwrap";
  throw new ConfigError(`AGENT_SANDBOX: the agent sandbox (bubblewrap) needs Linux, and this is ${platform}. Set AGENT_SANDBOX=none to run agents unsandboxed (README, "The sandbox").`);
}

/** Reads and validates the app's environment. Throws ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): AppConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(`Invalid environment: ${describeIssues(parsed.error.issues)}. See README.md, "Configuration".`);
  }
  const e = parsed.data;
  let privateKey: string | null;
  try {
    privateKey = getPrivateKey({ env });
  } catch (error) {
    throw new ConfigError(`PRIVATE_KEY / PRIVATE_KEY_PATH could not be read: ${(error as Error).message}`, { cause: error });
  }
  if (!privateKey) {
    throw new ConfigError("Set PRIVATE_KEY (the PEM text, or base64 of it) or PRIVATE_KEY_PATH (the .pem file) of your GitHub App.");
  }
  const command = e.AGENT_COMMAND?.trim() ? splitCommand(e.AGENT_COMMAND) : undefined;
  const { profiles, recipes } = parseProfiles(e.AGENT_PROFILES);
  if (Boolean(e.SLACK_BOT_TOKEN) !== Boolean(e.SLACK_CHANNEL)) {
    throw new ConfigError("The Slack mirror needs both SLACK_BOT_TOKEN and SLACK_CHANNEL (a channel ID like C0123456789); set both or neither.");
  }
  if (command) {
    // Fails at start-up, not at the first spawn, when a placeholder is misspelt.
    fillPlaceholders(command, Object.fromEntries(AGENT_PLACEHOLDERS.map((p) => [p, p])));
  }
  return {
    appId: Number(e.APP_ID),
    privateKey: privateKey.toString(),
    webhookSecret: e.WEBHOOK_SECRET,
    stateKey: StateKey.derive(e.STATE_SECRET ?? e.WEBHOOK_SECRET),
    port: Number(e.PORT),
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    baseUrl: e.GHE_HOST ? `${e.GHE_PROTOCOL}://${e.GHE_HOST}/api/v3` : "https://api.github.com",
    serverUrl: e.GHE_HOST ? `${e.GHE_PROTOCOL}://${e.GHE_HOST}` : "https://github.com",
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    dataDir: resolve(e.DATA_DIR),
    agent: {
      command,
      profiles,
      profileRecipes: recipes,
      timeoutSeconds: e.AGENT_TIMEOUT,
      concurrency: e.AGENT_CONCURRENCY,
      workdirRoot: resolve(e.AGENT_WORKDIR_ROOT ?? tmpdir()),
      keepWorkdir: e.AGENT_KEEP_WORKDIR,
      envPassthrough: e.AGENT_ENV_PASSTHROUGH,
      tokenPermissions: parsePermissions(e.AGENT_TOKEN_PERMISSIONS),
      killGraceSeconds: e.AGENT_KILL_GRACE,
      maxAttempts: e.AGENT_MAX_ATTEMPTS,
      networkAllow: e.AGENT_NETWORK_ALLOW,
    },
    workspace: {
      enabled: e.AGENT_WORKSPACE,
      root: resolve(e.WORKSPACE_ROOT ?? resolve(e.DATA_DIR, "workspaces")),
      maxBytes: e.WORKSPACE_MAX_BYTES,
      maxFiles: e.WORKSPACE_MAX_FILES,
    },
    sandbox: { mode: sandboxMode(e.AGENT_SANDBOX, platform), binds: e.AGENT_SANDBOX_BIND.map((p) => resolve(p)) },
    maxRounds: e.MAX_ROUNDS,
    answererMinPermission: e.ANSWERER_MIN_PERMISSION,
    repoConfigCacheSeconds: e.REPO_CONFIG_CACHE_TTL,
    reconcileIntervalSeconds: /^(off|0)$/i.test(e.RECONCILE_INTERVAL.trim()) ? undefined : parseDuration(e.RECONCILE_INTERVAL, "RECONCILE_INTERVAL"),
    reconcileLookbackSeconds: e.RECONCILE_LOOKBACK,
    labels: { awaiting: e.AWAITING_LABEL, dispatch: e.DISPATCH_LABEL },
    agentLogins: e.AGENT_LOGINS.map((l) => l.toLowerCase()),
    taskTemplatePath: resolve(e.TASK_TEMPLATE ?? resolve(projectRoot, "templates/spawn-task.md")),
    permissionCacheSeconds: e.PERMISSION_CACHE_TTL,
    shutdownGraceSeconds: e.SHUTDOWN_GRACE,
    adminToken: e.ADMIN_TOKEN,
    metricsToken: e.METRICS_TOKEN,
    githubWrites: {
      perMinute: e.GITHUB_WRITES_PER_MINUTE,
      perHour: e.GITHUB_WRITES_PER_HOUR,
      minuteMs: Math.max(1, e.GITHUB_WRITE_MINUTE) * 1000,
      hourMs: Math.max(1, e.GITHUB_WRITE_HOUR) * 1000,
    },
    statusDebounceMs: e.STATUS_DEBOUNCE * 1000,
    slack:
      e.SLACK_BOT_TOKEN && e.SLACK_CHANNEL
        ? { token: e.SLACK_BOT_TOKEN, channel: e.SLACK_CHANNEL, apiUrl: e.SLACK_API_URL.replace(/\/*$/, "/"), timeoutMs: e.SLACK_TIMEOUT * 1000 }
        : undefined,
  };
}
