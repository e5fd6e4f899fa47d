import type { AgentRecipe } from "../agent/recipes/index.js";
import type { PermissionLevel } from "../domain.js";
import type { AllowRule } from "../sandbox/egress/allowList.js";
import type { StateKey } from "../protocol/stateKey.js";

/** The app's settings, read from its environment by loadConfig (./env.ts). */
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
  /**
   * What this process does (README, "Runners"): `all` everything, `app` everything but running
   * agents, `runner` only the spawn jobs, running their agents.
   */
  role: "all" | "app" | "runner";
  /** Names this process's spawn worker: in logs, a round's status line and /healthz (RUNNER_NAME, default host name and pid). */
  runnerName: string;
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
