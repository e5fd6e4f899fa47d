import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startApp, type RunningApp } from "../src/app/startApp.js";
import { loadConfig } from "../src/config/env.js";
import { projectRoot } from "../src/config/projectRoot.js";
import { createLogger } from "../src/logging.js";
import { resolveCommand } from "../src/agent/resolveCommand.js";
import { startPrivateRedis, freePort, type PrivateRedis } from "../src/redis/privateRedis.js";
import { GitHubSimulator, type SimRepo, type SimUser } from "./simulator/index.js";

/**
 * The loop on this machine, as `npm run demo` and `npm run playground` run it: Redis (REDIS_URL, or a
 * private redis-server), the GitHub simulator with one repository and its maintainer, the real app
 * and the sample agent in examples/, its webhooks signed with a secret of this run.
 */
export const REPO = "acme/widgets";

export interface LocalStackOptions {
  appSlug: string;
  /** Keys of this run in a shared Redis. */
  redisPrefix: string;
  /** The private Redis's append-only files (and DATA_DIR/redis.url for operator commands). */
  dataDir: string;
  /** The simulator's port; default: any free one. */
  simPort?: number;
  /** The app's port; default: any free one. */
  appPort?: number;
  /** Variables over the process's own (ADMIN_TOKEN, SHUTDOWN_GRACE, …); the stack's own settings win. */
  env?: Record<string, string>;
}

export interface LocalStack {
  sim: GitHubSimulator;
  /** REPO, with the App installed on its owner. */
  repo: SimRepo;
  /** Has write access to REPO. */
  maintainer: SimUser;
  app: RunningApp;
  redisUrl: string;
  /** The private Redis, when REDIS_URL was unset. */
  redis: PrivateRedis | undefined;
  redisPrefix: string;
  sandbox: "bwrap" | "none";
  /** Stops the app (its agents get SHUTDOWN_GRACE), the simulator and then Redis, and removes the workspaces. */
  close(): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  let redis: PrivateRedis | undefined;
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    redis = await startPrivateRedis({ dataDir: options.dataDir });
    redisUrl = redis.url;
  }
  const secret = randomBytes(16).toString("hex");
  let sim: GitHubSimulator | undefined;
  // Each run's simulated repository is new: so is its workspace.
  const workspaces = mkdtempSync(join(tmpdir(), `${options.appSlug}-workspaces-`));
  const giveUp = async () => {
    await sim?.stop();
    await redis?.stop();
    rmSync(workspaces, { recursive: true, force: true });
  };
  try {
    sim = await GitHubSimulator.start({ webhookSecret: secret, appSlug: options.appSlug, port: options.simPort });
    const repo = sim.addRepo(REPO);
    const maintainer = sim.addUser("maintainer");
    sim.setPermission(REPO, "maintainer", "write");
    const sandbox = process.platform === "linux" && onPath("bwrap") && onPath("socat") && onPath("nsenter") ? "bwrap" : "none";
    const config = loadConfig({
      ...process.env,
      ...options.env,
      ...sim.appEnv(),
      HOST: "127.0.0.1",
      PORT: String(options.appPort ?? (await freePort())),
      REDIS_URL: redisUrl,
      REDIS_PREFIX: options.redisPrefix,
      DATA_DIR: options.dataDir,
      // The product's default where this host can run it; the sample agent's directory is shown read-only.
      AGENT_SANDBOX: sandbox,
      AGENT_SANDBOX_BIND: resolve(projectRoot, "examples"),
      AGENT_COMMAND: JSON.stringify([process.execPath, resolve(projectRoot, "examples/sample-agent.mjs")]),
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
      WORKSPACE_ROOT: workspaces,
    });
    const log = await createLogger(config.logLevel);
    // Locally there is no GitHub rate limit to respect, so writes are not spaced out.
    const app = await startApp({ config: { ...config, redisUrl }, log, octokit: { throttle: false, retry: true } });
    sim.setWebhookUrl(`${app.url}/api/github/webhooks`);
    const running = sim;
    return {
      sim: running,
      repo,
      maintainer,
      app,
      redisUrl,
      redis,
      redisPrefix: options.redisPrefix,
      sandbox,
      async close() {
        // Redis last: the app's shutdown still needs it.
        await app.close();
        await running.stop();
        await redis?.stop();
        rmSync(workspaces, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await giveUp();
    throw error;
  }
}

/** One line saying where the agent runs. */
export function sandboxNote(sandbox: LocalStack["sandbox"]): string {
  return sandbox === "bwrap"
    ? "🔒 the agent runs in the bubblewrap sandbox (AGENT_SANDBOX=bwrap)"
    : "⚠️ bwrap, socat or nsenter is not installed: the agent runs unsandboxed (AGENT_SANDBOX=none)";
}

/** Whether `name` is an executable on the app's PATH. */
function onPath(name: string): boolean {
  try {
    resolveCommand(name, "/", process.env.PATH);
    return true;
  } catch {
    return false;
  }
}
