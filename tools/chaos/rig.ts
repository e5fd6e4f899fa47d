import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Redis } from "ioredis";
import { projectRoot } from "../../src/config/projectRoot.js";
import { GateKeys } from "../../src/store/gateKeys.js";
import { GateRecords } from "../../src/store/gateRecords.js";
import { FeedbackLanes } from "../../src/status/feedbackLanes.js";
import { openInboundQueue, type InboundQueue } from "../../src/queue/inboundQueue.js";
import { openSpawnQueue, type SpawnQueue } from "../../src/queue/spawnQueue.js";
import { unfinishedJobs } from "../../src/queue/queues.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { GitHubSimulator } from "../simulator/index.js";
import type { AgentTracker } from "./agents.js";
import type { GateRecord } from "./invariants.js";
import type { RunPlan } from "./plan.js";
import { AppProcess, RedisServer, WebhookProxy } from "./processes.js";

export const CHAOS_AGENT = resolve(projectRoot, "test/support/agents/chaos-agent.mjs");
export const REPO = "acme/chaos";
export const HUMAN = "maintainer";
/** The app's timings in a chaos run: short, so recovery fits in the run's deadline. */
export const TIMINGS = { killGraceS: 1, shutdownGraceS: 2, reconcileS: 2 } as const;

/** What one run stands on: its own redis-server (append-only), simulator, proxy and app processes. */
export interface Rig {
  sim: GitHubSimulator;
  redis: RedisServer;
  /** The harness's own Redis connection: observing, and FLUSHALL. */
  client: Redis;
  prefix: string;
  keys: GateKeys;
  /** The loop's spawn queue, to see when work is pending. */
  spawn: SpawnQueue;
  /** The deliveries the apps have acknowledged and not yet handled. */
  inbound: InboundQueue;
  /** The GitHub writes the apps owe. */
  feedback: FeedbackLanes;
  apps: Array<AppProcess | undefined>;
  startApp: (replica: number) => Promise<void>;
  /** The runners (ROLE=runner), when the plan has any: then they run the agents, and the apps (ROLE=app) none. */
  runners: Array<AppProcess | undefined>;
  startRunner: (index: number) => Promise<void>;
  close(): Promise<void>;
}

/** Starts everything a run needs; the app replicas are up (healthy) when it returns. */
export async function startRig(plan: RunPlan, dir: string, agentLog: string, tracker: AgentTracker, extraEnv: Record<string, string> = {}): Promise<Rig> {
  const cleanup: Array<() => unknown> = [];
  const close = async () => {
    for (const step of cleanup.reverse()) {
      try {
        await step();
      } catch {
        // best effort: the next run starts from scratch anyway
      }
    }
  };
  try {
    const dataDir = mkdtempSync(join(tmpdir(), "escalation-chaos-redis-"));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const redis = await RedisServer.start(join(dataDir, "redis"));
    cleanup.push(() => redis.stop());
    const secret = randomBytes(16).toString("hex");
    const sim = await GitHubSimulator.start({ webhookSecret: secret });
    cleanup.push(() => sim.stop());
    sim.addRepo(REPO);
    sim.addUser(HUMAN);
    sim.setPermission(REPO, HUMAN, "write");
    const ports = await Promise.all(Array.from({ length: plan.replicas }, () => freePort()));
    const proxy = await WebhookProxy.start(() => ports.map((port) => `http://127.0.0.1:${port}`));
    cleanup.push(() => proxy.close());
    sim.setWebhookUrl(proxy.url);

    const prefix = `chaos${plan.index}`;
    const env = appEnv({ sim, secret, redisUrl: redis.url, prefix, agentLog, plan, extraEnv });
    const apps: Array<AppProcess | undefined> = ports.map(() => undefined);
    const runners: Array<AppProcess | undefined> = Array.from({ length: plan.runners }, () => undefined);
    const runnerPorts = await Promise.all(runners.map(() => freePort()));
    let starts = 0;
    // A fresh port at each start (the proxy follows): on a busy host another process may take a
    // port between freePort() and listen(), so a start that loses that race tries another.
    const start = async (name: string, portsOf: number[], index: number, own: Record<string, string>): Promise<AppProcess> => {
      for (let attempt = 1; ; attempt++) {
        if (attempt > 1) portsOf[index] = await freePort();
        try {
          return await AppProcess.start(
            `${name}#${++starts}`,
            portsOf[index]!,
            { ...env, ...own, PORT: String(portsOf[index]) },
            join(dir, `${name}.log`),
            (pid) => tracker.appStarted(pid),
          );
        } catch (error) {
          if (attempt >= 3) throw error;
        }
      }
    };
    const startApp = async (replica: number) => {
      apps[replica] = await start(`app${replica}`, ports, replica, plan.runners > 0 ? { ROLE: "app" } : {});
    };
    // Each runner with its own data directory, sharing only Redis and GitHub with the apps.
    const startRunner = async (index: number) => {
      const data = join(dir, `runner${index}-data`);
      runners[index] = await start(`runner${index}`, runnerPorts, index, {
        ROLE: "runner",
        RUNNER_NAME: `runner${index}`,
        DATA_DIR: data,
        WORKSPACE_ROOT: join(data, "workspaces"),
      });
    };
    cleanup.push(async () => {
      for (const app of [...apps, ...runners]) await app?.kill();
    });
    await Promise.all([...apps.map((_, i) => startApp(i)), ...runners.map((_, i) => startRunner(i))]);

    const client = new Redis(redis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => 100 });
    client.on("error", () => undefined);
    cleanup.push(() => client.disconnect());
    const [inbound, spawn, feedback] = [openInboundQueue(client, prefix), openSpawnQueue(client, prefix), new FeedbackLanes(client, prefix)];
    return { sim, redis, client, prefix, keys: new GateKeys(prefix), spawn, inbound, feedback, apps, startApp, runners, startRunner, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `npm start`'s environment: the simulator as GitHub, the private Redis, the chaos agent, short timings. */
function appEnv(o: {
  sim: GitHubSimulator;
  secret: string;
  redisUrl: string;
  prefix: string;
  agentLog: string;
  plan: RunPlan;
  extraEnv: Record<string, string>;
}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? tmpdir(),
    ...o.sim.appEnv(),
    HOST: "127.0.0.1",
    REDIS_URL: o.redisUrl,
    REDIS_PREFIX: o.prefix,
    // The agent runs from this project's directory, which the sandbox does not show.
    AGENT_SANDBOX: "none",
    AGENT_COMMAND: JSON.stringify([process.execPath, CHAOS_AGENT, o.agentLog, "{round}", "{issue}", String(o.plan.round0Ms), String(o.plan.resumeMs)]),
    AGENT_KILL_GRACE: `${TIMINGS.killGraceS}s`,
    AGENT_TIMEOUT: "2m",
    SHUTDOWN_GRACE: `${TIMINGS.shutdownGraceS}s`,
    RECONCILE_INTERVAL: `${TIMINGS.reconcileS}s`,
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    // Faults in the loop itself; the checkout's own crash recovery is tested in test/integration/workspace.
    AGENT_WORKSPACE: "off",
    ...o.extraEnv,
  };
}

/** Work waiting, delayed or running in the loop's queues (timers and maintenance's schedule aside); unreachable counts as busy. */
export async function busyJobs(rig: Rig): Promise<number> {
  const counts = await Promise.all([
    unfinishedJobs(rig.spawn).then(
      (spawns) => ({ spawns }),
      () => ({ unreachable: 1 }),
    ),
    unfinishedJobs(rig.inbound).then(
      (deliveries) => ({ deliveries }),
      () => ({ unreachable: 1 }),
    ),
    rig.feedback.unfinished().then(
      (feedback) => ({ feedback }),
      () => ({ unreachable: 1 }),
    ),
  ]);
  return counts.reduce((sum, c) => sum + Object.values(c).reduce((a, b) => a + b, 0), 0);
}

/** How many reconciliation runs the apps of this run finished after `since` (from their JSON logs). */
export function reconcilePasses(dir: string, since: number): number {
  let passes = 0;
  for (const file of readdirSync(dir).filter((f) => /^app\d+\.log$/.test(f))) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (!line.includes('"reconciliation finished"')) continue;
      try {
        if ((JSON.parse(line) as { time: number }).time > since) passes++;
      } catch {
        // a line cut by a SIGKILL
      }
    }
  }
  return passes;
}

/** The issue's gates as the app keeps them in Redis at the end; undefined when Redis cannot be read. */
export async function appGates(rig: Rig, issue: number): Promise<GateRecord[] | undefined> {
  try {
    const gates = await new GateRecords(rig.client, rig.prefix).issueGates({ repo: REPO, issue });
    return gates.map((g) => ({ id: g.id, state: g.state, answerCommentId: g.answerCommentId, answers: g.answers.length, questions: g.ask.questions.length }));
  } catch {
    return undefined;
  }
}

/** The issue (comments, label events) and the app's keys (not the queues'), for debugging a violation. */
export async function dumpState(rig: Rig, issue: number, dir: string): Promise<void> {
  const { sim } = rig;
  writeFileSync(
    join(dir, "issue.json"),
    `${JSON.stringify({ issue: sim.issue(REPO, issue), comments: sim.comments(REPO, issue), events: sim.issueEvents(REPO, issue) }, null, 2)}\n`,
  );
  try {
    const keys = (await rig.client.keys(`${rig.prefix}:*`))
      .filter((k) => !/^[^:]+:(deliveries|owed|feedback|inbound|spawn|timeouts|maintenance|mirror[^:]*)(:|$)/.test(k))
      .sort();
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const type = await rig.client.type(key);
      out[key] =
        type === "hash"
          ? await rig.client.hgetall(key)
          : type === "list"
            ? await rig.client.lrange(key, 0, -1)
            : type === "set"
              ? await rig.client.smembers(key)
              : type === "string"
                ? await rig.client.get(key)
                : type;
    }
    writeFileSync(join(dir, "redis.json"), `${JSON.stringify(out, null, 2)}\n`);
  } catch {
    // Redis down at the end: nothing to dump
  }
}
