import { randomBytes } from "node:crypto";
import type { JobType, Queue } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { loadConfig } from "../../src/config/env.js";
import type { AppConfig } from "../../src/config/appConfig.js";
import { startApp, type RunningApp, type StartAppOptions } from "../../src/app/startApp.js";
import { GitHubSimulator } from "../../tools/simulator/index.js";
import { unfinishedJobs, type Queues } from "../../src/queue/queues.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { RestConformance } from "./github/restConformance.js";
import { requirePrograms } from "./programs.js";

export const REPO = "acme/widgets";
export const WEBHOOK_SECRET = "e2e-webhook-secret";

export interface Loop {
  sim: GitHubSimulator;
  app: RunningApp;
  config: AppConfig & { redisUrl: string };
  /** Stops the app (as a deploy or crash would) and starts a new one on the same Redis namespace. */
  restart(options?: { whileDown?: () => Promise<void> | void }): Promise<void>;
  /** Deletes every key of this loop's namespace: what a Redis wipe does to this app. */
  wipeRedis(): Promise<void>;
  /** Every REST request so far that GitHub's REST description does not document. */
  readonly restViolations: readonly string[];
  /** Stops everything, then fails if any REST request was undocumented: the test that made it fails. */
  close(): Promise<void>;
}

/** Starts the real app against `config`; webhooks from the simulator go to it. */
export async function bootApp(sim: GitHubSimulator, config: AppConfig & { redisUrl: string }): Promise<RunningApp> {
  const booted = Date.now();
  const app = await startOnFreePort({ config, log: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), octokit: { throttle: false, retry: false } });
  sim.setWebhookUrl(`${app.url}/api/github/webhooks`);
  // Tests start from a quiet app: the start-up reconciliation has finished (a generous deadline: it
  // reads every open issue, and a restart inside a test runs on a machine busy with other files).
  await waitFor("the start-up reconciliation", async () => ((await app.services.namespaceMarks.lastReconcile()) ?? 0) >= booted, 30_000);
  return app;
}

/**
 * A port probed free can be taken by a parallel test file before the app listens on it (Probot
 * reads port 0 as its default, 3000, so the kernel cannot pick it): on EADDRINUSE, another port.
 */
export async function startOnFreePort(options: StartAppOptions): Promise<RunningApp> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startApp(attempt === 1 ? options : { ...options, config: { ...options.config, port: await freePort() } });
    } catch (error) {
      if (attempt >= 5 || (error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    }
  }
}

/**
 * The real thing on loopback: the GitHub simulator, the Probot app with its queues and workers on
 * the private test Redis (a fresh key prefix per loop), webhooks signed and sent over HTTP. Every
 * REST request the simulator receives is held to GitHub's REST description (see close).
 */
export async function startLoop(env: Record<string, string> = {}): Promise<Loop> {
  requirePrograms("git"); // the simulator serves the repository with git http-backend
  const rest = new RestConformance();
  const sim = await GitHubSimulator.start({ webhookSecret: WEBHOOK_SECRET, inspect: rest.inspect });
  sim.addRepo(REPO);
  sim.addUser("maintainer");
  sim.setPermission(REPO, "maintainer", "write");
  sim.addUser("admin");
  sim.setPermission(REPO, "admin", "admin");
  sim.addUser("reader");
  sim.setPermission(REPO, "reader", "read");
  sim.addUser("renovate[bot]", { type: "Bot" });
  const config = loadConfig({
    ...sim.appEnv(),
    PORT: String(await freePort()),
    HOST: "127.0.0.1",
    REDIS_URL: process.env.REDIS_URL,
    REDIS_PREFIX: `t${randomBytes(5).toString("hex")}`,
    SHUTDOWN_GRACE: "2s",
    AGENT_KILL_GRACE: "1s",
    // The loop's own tests run agents in a fresh directory; test/e2e/workspace.test.ts turns the checkout on.
    AGENT_WORKSPACE: "off",
    // Test agents live in the project's test/ directory, which the sandbox does not show; a test asks for bwrap.
    AGENT_SANDBOX: "none",
    ...env,
  });
  const full = { ...config, redisUrl: config.redisUrl! };
  const loop: Loop = {
    sim,
    app: await bootApp(sim, full),
    config: full,
    async restart(options) {
      await loop.app.close();
      sim.setWebhookUrl(undefined);
      await options?.whileDown?.();
      loop.app = await bootApp(sim, full);
    },
    async wipeRedis() {
      const redis = new Redis(full.redisUrl);
      try {
        const keys = await redis.keys(`${full.redisPrefix}:*`);
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        await redis.quit();
      }
    },
    restViolations: rest.violations,
    async close() {
      await loop.app.close();
      await sim.stop();
      rest.assertNone();
    },
  };
  return loop;
}

/** Polls until `check` returns a truthy value; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last instanceof Error ? String(last) : JSON.stringify(last)}` : ""}`);
}

/** Job states that are work still to do; `delayed` is added where a delay is a retry or a debounce, not a timer. */
const BUSY: JobType[] = ["active", "wait", "prioritized", "waiting-children", "paused"];

/** Jobs still to do by queue, upstream queues first: a job that adds another has finished before the one it added is counted. */
async function pendingJobs(queues: Queues, timers: boolean): Promise<Record<string, number>> {
  const busy = async (queue: Queue, delayed: boolean) =>
    Object.values(await queue.getJobCounts(...BUSY, ...(delayed ? (["delayed"] as const) : []))).reduce((a, b) => a + b, 0);
  return {
    maintenance: await busy(queues.maintenance, false),
    timeouts: await busy(queues.timeouts, timers),
    inbound: await unfinishedJobs(queues.inbound),
    spawn: await unfinishedJobs(queues.spawn),
    feedback: await queues.feedback.unfinished(),
  };
}

/** True when the simulator has no webhook queued or in flight (every delivery so far answered). */
async function delivered(sim: GitHubSimulator): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const busy = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 0)));
  const idle = await Promise.race([sim.whenDelivered().then(() => true as const), busy]);
  clearTimeout(timer);
  return idle;
}

/**
 * Waits until the loop has done everything it was given, before a test asserts that something did
 * NOT happen: every webhook the simulator raised so far answered (the app answers once the event is
 * queued), and no delivery, round or entry of the feedback lanes waiting, running, or delayed for a retry
 * or a debounce; nor a timeout or reconciliation running. Whatever the input would have caused (a
 * spawn, a comment, a reaction, a label) has then happened; an agent's or the app's own writes raise
 * webhooks while their job runs, so those are waited for too. `timers` also waits until the delayed
 * timeout and ladder jobs (a gate's timeout, its reminder steps) have all fired.
 */
export async function quiet(loop: { sim: GitHubSimulator; app: RunningApp }, options: { timers?: boolean; timeoutMs?: number } = {}): Promise<void> {
  let calm = 0;
  let busy = "";
  try {
    await waitFor(
      "the loop to finish its work",
      async () => {
        const seen = loop.sim.deliveries.length;
        const webhooks = await delivered(loop.sim);
        const pending = Object.entries(await pendingJobs(loop.app.services.queues, options.timers ?? false)).filter(([, n]) => n > 0);
        busy = [...(webhooks ? [] : ["webhooks in flight"]), ...pending.map(([queue, n]) => `${n} ${queue} job(s)`)].join(", ");
        // Twice in a row, with no delivery in between: nothing moved while the queues were read.
        calm = busy === "" && (await delivered(loop.sim)) && loop.sim.deliveries.length === seen ? calm + 1 : 0;
        return calm >= 2;
      },
      options.timeoutMs ?? 30_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; still to do: ${busy || "nothing, but deliveries kept coming"}`, { cause: error });
  }
}

/** Waits until the wall clock is in a later whole second than `iso`: GitHub's timestamps have whole seconds. */
export async function afterSecondOf(iso: string): Promise<void> {
  await waitFor(`a second later than ${iso}`, () => Date.now() >= Date.parse(iso) + 1000);
}

/**
 * Waits out a wall-clock expiry (a cache's TTL): there time itself is the event, so this is a sleep.
 * Never use it before asserting that something did not happen; wait with quiet() instead.
 */
export async function waitOut(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}
