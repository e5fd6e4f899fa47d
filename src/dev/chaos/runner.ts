import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { projectRoot } from "../../config/projectRoot.js";
import { Keys } from "../../gates/keys.js";
import { parseAskComment } from "../../protocol/ask.js";
import { readStatusRecord } from "../../reconcile/statusRecord.js";
import { QUEUES, jobIds } from "../../queue/names.js";
import { freePort } from "../../redis/privateRedis.js";
import { GitHubSimulator, type SimComment } from "../simulator/index.js";
import { AgentTracker } from "./agents.js";
import { inject, type FaultTarget } from "./faults.js";
import { checkInvariants } from "./invariants.js";
import { STEPS, describeFaults, type RunPlan, type Step } from "./plan.js";
import { AppProcess, RedisServer, WebhookProxy } from "./processes.js";
import { Rng } from "./rng.js";

export const CHAOS_AGENT = resolve(projectRoot, "test/support/agents/chaos-agent.mjs");
const REPO = "acme/chaos";
const HUMAN = "maintainer";
/** The app's timings in a chaos run: short, so recovery fits in the run's deadline. */
const KILL_GRACE_S = 1;
const SHUTDOWN_GRACE_S = 2;
const RECONCILE_S = 2;
const POLL_MS = 50;

export interface RunOptions {
  /** Where each run's logs go (run-N/app0.log, agents.jsonl, timeline.txt). */
  artifactsDir: string;
  /** A run must complete (newest question resumed, round finished) within this. */
  deadlineMs: number;
  /** After completion: how long the queues may take to drain (a stalled job's re-run) before the check. */
  drainMs: number;
  /** Quiet time after the queues drained, in which a late duplicate would still show up. */
  settleMs: number;
  /** Extra environment for the app (e.g. LOG_LEVEL). */
  env?: Record<string, string>;
}

export interface RunResult {
  index: number;
  seed: number;
  faults: string;
  faultKinds: string[];
  outcome: "ok" | "violated" | "error";
  violations: string[];
  seconds: number;
  /** Spawns seen: started and completed agent processes. */
  agentsStarted: number;
  agentsCompleted: number;
  timeline: string[];
  dir: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One run: fresh Redis (append-only), simulator, app process(es) behind a proxy; the loop with faults; the check. */
export async function runScenario(plan: RunPlan, options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const dir = join(options.artifactsDir, `run-${String(plan.index).padStart(3, "0")}`);
  mkdirSync(dir, { recursive: true });
  const timeline: string[] = [];
  const mark = (text: string) => timeline.push(`${((Date.now() - started) / 1000).toFixed(2).padStart(6)}s  ${text}`);
  const result = (outcome: RunResult["outcome"], violations: string[], tracker?: AgentTracker): RunResult => ({
    index: plan.index,
    seed: plan.seed,
    faults: describeFaults(plan),
    faultKinds: [...(plan.replicas === 2 ? ["two-replicas"] : []), ...plan.faults.map((f) => f.kind)],
    outcome,
    violations,
    seconds: (Date.now() - started) / 1000,
    agentsStarted: tracker?.processes.length ?? 0,
    agentsCompleted: tracker?.completed().length ?? 0,
    timeline,
    dir,
  });

  const dataDir = mkdtempSync(join(tmpdir(), "escalation-chaos-redis-"));
  const agentLog = join(dir, "agents.jsonl");
  writeFileSync(agentLog, "");
  const tracker = new AgentTracker(agentLog);
  const cleanup: Array<() => Promise<unknown> | unknown> = [];
  try {
    const secret = randomBytes(16).toString("hex");
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const redis = await RedisServer.start(join(dataDir, "redis"));
    cleanup.push(() => redis.stop());
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
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? tmpdir(),
      APP_ID: String(sim.appId),
      PRIVATE_KEY: sim.privateKey,
      WEBHOOK_SECRET: secret,
      GHE_HOST: sim.host,
      GHE_PROTOCOL: "http",
      HOST: "127.0.0.1",
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      AGENT_COMMAND: JSON.stringify([process.execPath, CHAOS_AGENT, agentLog, "{round}", "{issue}", String(plan.round0Ms), String(plan.resumeMs)]),
      AGENT_KILL_GRACE: `${KILL_GRACE_S}s`,
      AGENT_TIMEOUT: "2m",
      SHUTDOWN_GRACE: `${SHUTDOWN_GRACE_S}s`,
      RECONCILE_INTERVAL: `${RECONCILE_S}s`,
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      ...options.env,
    };
    const apps: Array<AppProcess | undefined> = ports.map(() => undefined);
    let starts = 0;
    const startApp = async (replica: number) => {
      const name = `app${replica}`;
      apps[replica] = await AppProcess.start(`${name}#${++starts}`, ports[replica]!, { ...env, PORT: String(ports[replica]) }, join(dir, `${name}.log`));
    };
    cleanup.push(async () => {
      for (const app of apps) await app?.kill();
    });
    await Promise.all(apps.map((_, i) => startApp(i)));
    mark(`${plan.replicas} app replica(s) up: ${apps.map((a) => `${a!.name} pid ${a!.pid}`).join(", ")}`);

    const client = new Redis(redis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => 100 });
    client.on("error", () => undefined);
    cleanup.push(() => client.disconnect());
    const keys = new Keys(prefix);
    const queues = [QUEUES.inbound, QUEUES.spawn, QUEUES.feedback].map((name) => new Queue(name, { connection: client, prefix }));
    cleanup.push(() => Promise.all(queues.map((q) => q.close().catch(() => undefined))));

    const rng = new Rng(plan.seed ^ 0x5eed);
    const target: FaultTarget = {
      rng,
      sim,
      redis,
      client,
      tracker,
      apps,
      startApp,
      mark,
      limits: { sigkillMs: (KILL_GRACE_S + 3) * 1000, sigtermMs: (SHUTDOWN_GRACE_S + KILL_GRACE_S + 4) * 1000 },
      background: [],
      async pause(ms) {
        const until = Date.now() + ms;
        do {
          tracker.poll();
          await sleep(Math.min(POLL_MS, Math.max(0, until - Date.now())));
        } while (Date.now() < until);
      },
    };

    // The scenario: a maintainer files an issue and dispatches the agent.
    const issue = sim.createIssue(REPO, { title: `Chaos run ${plan.index}`, body: "Add a cache in front of the lookups.", author: HUMAN });
    sim.comment(REPO, issue.number, HUMAN, "/agent");
    mark(`issue #${issue.number} filed, /agent posted; faults: ${describeFaults(plan) || "none"}`);
    const deadline = Date.now() + options.deadlineMs;
    const pending = [...plan.faults];
    const reached = new Set<Step>();
    const answers = new Map<string, number>();
    let lastStep = "dispatched";
    let lastFaultAt = Date.now();

    const reach = async (step: Step) => {
      for (const s of STEPS.slice(0, STEPS.indexOf(step) + 1)) {
        if (reached.has(s)) continue;
        reached.add(s);
        lastStep = s;
        mark(`step: ${s}`);
        for (const fault of pending.filter((f) => f.step === s)) {
          pending.splice(pending.indexOf(fault), 1);
          mark(`fault: ${fault.kind}`);
          await inject(fault, target);
          lastFaultAt = Date.now();
        }
      }
    };
    /** When each ask comment was first seen: with its second-precision timestamp, the latest it can have been posted. */
    const askSeen = new Map<string, number>();
    const asksOf = (comments: SimComment[]) => {
      const asks = comments.filter((c) => c.user.login === sim.botLogin && safeAsk(c.body));
      for (const ask of asks) if (!askSeen.has(String(ask.id))) askSeen.set(String(ask.id), Math.min(Date.now(), Date.parse(ask.created_at) + 999));
      return asks.map((c) => String(c.id));
    };
    const gateRecorded = async (askId: string) => (await client.hget(keys.gate(askId), "state").catch(() => null)) !== null;
    const resumeQueued = async (askId: string) => (await client.exists(`${prefix}:${QUEUES.spawn}:${jobIds.resume(askId)}`).catch(() => 0)) === 1;

    // Done when the newest question's resume round has finished and nothing is left to run: no
    // queued or active job (a dead worker's job re-runs only after its lock expires, and a duplicate
    // would show then) and no agent alive. The human keeps answering any new question meanwhile.
    let done = false;
    let resumedAt: number | undefined;
    let pendingJobs = 0;
    const drainProblems: string[] = [];
    for (;;) {
      tracker.poll();
      const asks = asksOf(sim.comments(REPO, issue.number));
      const newest = asks.at(-1);
      if (tracker.processes.some((p) => p.round === 0)) await reach("round0-running");
      if (newest && (await gateRecorded(newest))) await reach("gate-recorded");
      const waitForGate = pending.some((f) => f.step === "gate-recorded");
      for (const ask of asks) {
        if (answers.has(ask) || (waitForGate && !reached.has("gate-recorded"))) continue;
        await target.pause(rng.int(0, 300)); // the human reads the question
        const reply = sim.comment(REPO, issue.number, HUMAN, `1. chaos-answer-${ask}`);
        answers.set(ask, reply.id);
        mark(`human answered question ${ask} (comment ${reply.id})`);
        await reach("answered");
      }
      if (newest && answers.has(newest) && (await resumeQueued(newest))) await reach("enqueued");
      if (tracker.processes.some((p) => p.round > 0)) await reach("agent-running");
      const resumed = newest !== undefined && answers.has(newest) && tracker.completed().some((p) => p.round > 0 && p.resumes === newest);
      if (resumed && resumedAt === undefined) mark(`the answer to ${newest} was resumed and the round finished; draining`);
      resumedAt = resumed ? (resumedAt ?? Date.now()) : undefined;
      if (resumedAt !== undefined) {
        pendingJobs = await busyJobs(queues);
        // Two reconciliation passes since the last fault: a rebuild that would re-run the round has happened.
        const rebuilt = reconcilePasses(dir, lastFaultAt) >= 2;
        if (pendingJobs === 0 && tracker.alive().length === 0 && rebuilt && (await busyJobs(queues)) === 0) {
          done = true;
          break;
        }
        if (Date.now() > resumedAt + options.drainMs) {
          drainProblems.push(`stuck: ${pendingJobs} job(s) still queued or active and ${tracker.alive().length} agent(s) alive ${options.drainMs / 1000} s after the round finished`);
          break;
        }
      } else if (Date.now() > deadline) {
        break;
      }
      await sleep(POLL_MS);
    }
    await Promise.all(target.background);
    if (done) {
      mark("drained");
      await target.pause(options.settleMs);
    }
    tracker.poll();
    mark("checking");

    const comments = sim.comments(REPO, issue.number);
    writeFileSync(join(dir, "issue.json"), `${JSON.stringify({ issue: sim.issue(REPO, issue.number), comments }, null, 2)}\n`);
    const finalAsks = asksOf(comments);
    for (const ask of finalAsks) tracker.askPosted(issue.number, askSeen.get(ask)!);
    const violations = checkInvariants({
      done: done || drainProblems.length > 0,
      stuckAt: `last step reached: ${lastStep}; faults not yet injected: ${pending.map((f) => `${f.kind}@${f.step}`).join(", ") || "none"}`,
      deadlineSeconds: options.deadlineMs / 1000,
      asks: finalAsks,
      answers,
      state: readStatusRecord(comments, (login) => login === sim.botLogin)?.state,
      agents: tracker.processes,
      diedWithApp: (agent) => tracker.diedWithApp(agent),
      orphaned: (agent) => tracker.orphaned(agent),
      trackerViolations: [...tracker.violations, ...drainProblems],
    });
    for (const agent of tracker.processes.filter((a) => tracker.orphaned(a))) mark(`note: pid ${agent.pid} (round ${agent.round}) finished after its app died; not counted`);
    for (const v of violations) mark(`VIOLATION ${v}`);
    return result(violations.length === 0 ? "ok" : "violated", violations, tracker);
  } catch (error) {
    mark(`ERROR ${(error as Error).stack ?? String(error)}`);
    return result("error", [`harness error: ${(error as Error).message}`], tracker);
  } finally {
    for (const step of cleanup.reverse()) {
      try {
        await step();
      } catch {
        // best effort: the next run starts from scratch anyway
      }
    }
    tracker.poll();
    tracker.killAll();
    writeFileSync(join(dir, "timeline.txt"), `${timeline.join("\n")}\n`);
  }
}

function safeAsk(body: string): boolean {
  try {
    return parseAskComment(body) !== undefined;
  } catch {
    return false;
  }
}

/** How many reconciliation runs the apps of this run finished after `since` (from their JSON logs). */
function reconcilePasses(dir: string, since: number): number {
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

/** Jobs waiting, delayed or running in the loop's queues (maintenance's schedule aside); unreachable counts as busy. */
async function busyJobs(queues: Queue[]): Promise<number> {
  const counts = await Promise.all(queues.map((q) => q.getJobCounts("active", "waiting", "delayed", "prioritized", "paused").catch(() => ({ unreachable: 1 }))));
  return counts.reduce((sum, c) => sum + Object.values(c).reduce((a, b) => a + b, 0), 0);
}
