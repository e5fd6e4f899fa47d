import { getPrivateKey } from "@probot/get-private-key";
import { resolve } from "node:path";
import { hostname, tmpdir } from "node:os";
import { ConfigError, describeIssues } from "../errors.js";
import { parseDuration } from "../protocol/duration.js";
import { StateKey } from "../protocol/stateKey.js";
import { checkPlaceholders } from "./agentPlaceholders.js";
import { parseProfiles } from "./agentProfiles.js";
import type { AppConfig } from "./appConfig.js";
import { EnvSchema } from "./envSchema.js";
import { projectRoot } from "./projectRoot.js";
import { sandboxMode } from "./sandboxMode.js";
import { splitCommand } from "./splitCommand.js";
import { parsePermissions } from "./tokenPermissions.js";

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
  if (e.ROLE !== "all" && !e.REDIS_URL) {
    throw new ConfigError(
      `ROLE=${e.ROLE} needs REDIS_URL: the app and its runners share one Redis, and a private one is only for ROLE=all (one process doing everything).`,
    );
  }
  if (command) {
    // Fails at start-up, not at the first spawn, when a placeholder is misspelt.
    checkPlaceholders(command);
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
    role: e.ROLE,
    runnerName: e.RUNNER_NAME ?? `${hostname()}-${process.pid}`,
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
