import { WATCHDOG_NAME } from "../../src/agent/watchdog.js";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { projectRoot } from "../../src/config/projectRoot.js";
import type { Ask } from "../../src/domain.js";
import { openStores, type Stores } from "../../src/store/stores.js";
import { renderAskComment } from "../../src/protocol/ask.js";
import { ClosableConnection } from "../../src/queue/closableConnection.js";
import { FeedbackLanes } from "../../src/status/feedbackLanes.js";
import { QUEUES } from "../../src/queueNames.js";
import { freePort, startPrivateRedis, type PrivateRedis } from "../../src/redis/privateRedis.js";
import { GitHubSimulator, type SimComment, type SimIssue, type SimRepo } from "../simulator/index.js";
import { AgentLog } from "./agentLog.js";
import { agentPipe, type AgentPipe } from "./agentPipe.js";
import { benchAsk, seedParkedGates, storeParkedGate } from "./parkedGates.js";
import { inPool, sleep, waitUntil } from "./pool.js";

/**
 * One repository per measurement (all on one installation, as in one organisation), so the calls
 * and the leftover feedback of one measurement are told apart from another's by path.
 */

/** The job states the benchmark counts to see a queue drained. */
const COUNTED_STATES = ["wait", "active", "delayed", "prioritized", "waiting-children", "paused"] as const;
/**
 * What one count of those states costs Redis, as INFO commandstats counts it: BullMQ's getCounts
 * script (one EVALSHA) runs LINDEX and LLEN for "wait" and "paused", LLEN for "active" and ZCARD
 * for each sorted set. Without them the app was charged about 30 of the benchmark's commands per round trip.
 */
const COUNT_COMMANDS: Readonly<Record<string, number>> = { evalsha: 1, lindex: 2, llen: 3, zcard: 3 };

export const REPOS = {
  roundTrips: "acme/roundtrips",
  parked: "acme/parked",
  replies: "acme/replies",
  sideBySide: "acme/side-by-side",
  polled: "acme/polled",
  burst: "acme/burst",
} as const;
export const REPO = REPOS.replies;
export const POLLED_REPO = REPOS.polled;
export const HUMAN = "maintainer";
export const AWAITING = "awaiting-human";
export { QUESTION } from "./parkedGates.js";
export const AGENT = resolve(projectRoot, "tools/bench/agents/timestamp-agent.cjs");
const APP_ENTRY = resolve(projectRoot, ".tools-build/tools/bench/appProcess.js");
const BARE_PROBOT_ENTRY = resolve(projectRoot, ".tools-build/tools/bench/bareProbotProcess.js");

export interface ParkedGate {
  repo: string;
  issue: number;
  gateId: string;
  askComment: SimComment;
  askedAt: number;
}

export interface AgentStartedEvent {
  repo: string;
  issue: number;
  round: number;
  replyToSpawnMs: number;
  /** Date.now() in the app when it emitted agent.started. */
  at: number;
}

export interface AppMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  afterGc: boolean;
}

export interface RigOptions {
  /** Where this run's app log, agent log and (with profiling) CPU profiles go. */
  dir: string;
  agentConcurrency: number;
  throttle: boolean;
  profile: boolean;
  log: (line: string) => void;
  /** Run the agents in the bubblewrap sandbox (AGENT_SANDBOX=bwrap); off by default, as before. */
  sandbox?: boolean;
  /** GitHub's state before the app first starts (seeded history, no webhooks): what its start-up reconciliation reads. */
  prepare?: (sim: GitHubSimulator) => void;
  /** The app's environment over the rig's. */
  env?: Record<string, string>;
  /** How long the start-up reconciliation may take (60 s by default). */
  startupTimeoutMs?: number;
  /** Runners (ROLE=runner) beside the app, which then runs ROLE=app; 0 by default (ROLE=all). */
  runners?: number;
}

export interface CpuTimes {
  appSelf: number;
  appChildren: number;
  /** The runners (ROLE=runner), their agents included: 0 without runners. */
  runners: number;
  redis: number;
  bench: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime+stime and cutime+cstime of a process, in ms. */
function isWatchdog(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[3] === WATCHDOG_NAME;
  } catch {
    return false;
  }
}

function procCpu(pid: number): { self: number; children: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    return { self: (fields[11]! + fields[12]!) * TICK_MS, children: (fields[13]! + fields[14]!) * TICK_MS };
  } catch {
    return { self: Number.NaN, children: Number.NaN };
  }
}

export function cpuDelta(after: CpuTimes, before: CpuTimes, per: number): CpuTimes {
  return {
    appSelf: (after.appSelf - before.appSelf) / per,
    appChildren: (after.appChildren - before.appChildren) / per,
    runners: (after.runners - before.runners) / per,
    redis: (after.redis - before.redis) / per,
    bench: (after.bench - before.bench) / per,
  };
}

const eventKey = (repo: string, issue: number) => `${repo.toLowerCase()}#${issue}`;

/** The app (or a runner, or the bare Probot app) in its own process, talking to the benchmark over IPC. */
export class AppChild {
  readonly started = new Map<string, AgentStartedEvent>();
  #probes = new Map<number, (memory: AppMemory) => void>();
  #nextProbe = 1;
  private constructor(
    readonly process: ChildProcess,
    readonly url: string,
    readonly pid: number,
    private readonly exited: Promise<void>,
  ) {
    process.on("message", (message: { type: string } & Record<string, unknown>) => {
      if (message.type === "agent.started") {
        for (const event of message.events as AgentStartedEvent[]) this.started.set(eventKey(event.repo, event.issue), event);
      } else if (message.type === "memory") {
        const resolveProbe = this.#probes.get(message.id as number);
        this.#probes.delete(message.id as number);
        resolveProbe?.(message as unknown as AppMemory);
      }
    });
  }

  static async start(env: Record<string, string>, logFile: string, nodeArgs: string[], entry = APP_ENTRY): Promise<AppChild> {
    const fd = openSync(logFile, "a");
    const child = spawn(process.execPath, [...nodeArgs, "--expose-gc", entry], { env, stdio: ["ignore", fd, fd, "ipc"] });
    closeSync(fd);
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    const ready = await new Promise<{ url: string; pid: number }>((resolveReady, reject) => {
      const timer = setTimeout(() => reject(new Error(`the app did not start within 60 s; see ${logFile}`)), 60_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the app exited with code ${code} before it was ready; see ${logFile}`));
      });
      child.on("message", (message: { type: string; url?: string; pid?: number }) => {
        if (message.type !== "ready") return;
        clearTimeout(timer);
        resolveReady({ url: message.url!, pid: message.pid! });
      });
    });
    return new AppChild(child, ready.url, ready.pid, exited);
  }

  get webhookUrl(): string {
    return `${this.url}/api/github/webhooks`;
  }

  /** RSS and heap (after a full GC) of the app process. */
  memory(): Promise<AppMemory> {
    const id = this.#nextProbe++;
    return new Promise((resolveProbe, reject) => {
      const timer = setTimeout(() => reject(new Error("the app did not answer a memory probe")), 30_000);
      this.#probes.set(id, (memory) => {
        clearTimeout(timer);
        resolveProbe(memory);
      });
      this.process.send({ type: "memory", id });
    });
  }

  async stop(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.kill("SIGTERM");
    const timer = setTimeout(() => this.process.kill("SIGKILL"), 20_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * One benchmark environment on loopback: a private redis-server (append-only, as `npm start`
 * runs it), the GitHub simulator, the real app in a child process, the trivial agent.
 */
export class Rig {
  readonly store: Stores;
  readonly queues: Queue[];
  readonly feedback: FeedbackLanes;
  readonly repos = new Map<string, SimRepo>();
  readonly bootedAt: number;
  /** The runners beside the app (RigOptions.runners). */
  runners: AppChild[] = [];
  /** When the app's process was started: a start-up reconciliation's wall time counts from here. */
  appSpawnedAt = 0;
  /** When the benchmark saw the start-up reconciliation finished (polled every 25 ms). */
  startupReconciledAt = 0;
  #redisPid: number | undefined;
  #pipe: AgentPipe | undefined;
  /** The environment the app was started with. */
  #env: Record<string, string> = {};
  /** Commands the benchmark itself ran on Redis (its queue counts, the commands inside their script included), by command, to leave out of the app's. */
  readonly benchCommands: Record<string, number> = {};

  private constructor(
    readonly options: RigOptions,
    readonly redisServer: PrivateRedis,
    readonly redis: Redis,
    readonly sim: GitHubSimulator,
    readonly app: AppChild,
    readonly agents: AgentLog,
    readonly prefix: string,
    readonly secret: string,
    private readonly redisDir: string,
  ) {
    this.store = openStores(redis, prefix);
    this.queues = Object.values(QUEUES).map((name) => new Queue(name, { connection: redis, prefix }, ClosableConnection));
    this.feedback = new FeedbackLanes(redis, prefix);
    this.bootedAt = Date.now();
  }

  static async start(options: RigOptions): Promise<Rig> {
    mkdirSync(options.dir, { recursive: true });
    const redisDir = join(options.dir, "redis");
    const redisServer = await startPrivateRedis({ dataDir: redisDir });
    const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
    const secret = randomBytes(16).toString("hex");
    const sim = await GitHubSimulator.start({ webhookSecret: secret });
    const repos = Object.values(REPOS).map((name) => sim.addRepo(name));
    sim.addUser(HUMAN);
    for (const repo of repos) sim.setPermission(repo.full_name, HUMAN, "write");
    options.prepare?.(sim);
    const prefix = `bench${randomBytes(3).toString("hex")}`;
    const agents = new AgentLog(join(options.dir, "agents.log"));
    const pipe = options.sandbox ? agentPipe(join(options.dir, "agent-pipe"), agents.path) : undefined;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      NODE_ENV: "production",
      ...sim.appEnv(),
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      REDIS_URL: redisServer.url,
      REDIS_PREFIX: prefix,
      AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, pipe?.path ?? agents.path, "{repo}", "{issue}", "{round}"]),
      // Sandboxed, the agent's script and its FIFO are shown read-only.
      ...(pipe ? { AGENT_SANDBOX: "bwrap", AGENT_SANDBOX_BIND: `${dirname(AGENT)},${pipe.dir}` } : { AGENT_SANDBOX: "none" }),
      AGENT_CONCURRENCY: String(options.agentConcurrency),
      RECONCILE_INTERVAL: "off",
      SHUTDOWN_GRACE: "2s",
      AGENT_KILL_GRACE: "1s",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      // The simulator enforces no GitHub limit; the write budget (issue 10) at its maximum lets the
      // feedback drain during the run. It is off the resume path either way.
      GITHUB_WRITES_PER_MINUTE: "1000",
      GITHUB_WRITES_PER_HOUR: "100000",
      BENCH_THROTTLE: options.throttle ? "on" : "off",
      // The loop's figures without a checkout, comparable with earlier runs.
      AGENT_WORKSPACE: "off",
      ...options.env,
    };
    const nodeArgs = options.profile ? ["--cpu-prof", `--cpu-prof-dir=${join(options.dir, "profiles")}`] : [];
    const booted = Date.now();
    const runnerCount = options.runners ?? 0;
    // Each process has its own DATA_DIR (and runner its own port and name): they share only Redis and GitHub.
    const app = await AppChild.start(
      { ...env, ...(runnerCount > 0 ? { ROLE: "app" } : {}), DATA_DIR: join(options.dir, "data-app") },
      join(options.dir, "app.log"),
      nodeArgs,
    );
    const runners: AppChild[] = [];
    for (let i = 0; i < runnerCount; i++) {
      const runnerEnv = {
        ...env,
        ROLE: "runner",
        RUNNER_NAME: `bench-runner-${i}`,
        PORT: String(await freePort()),
        DATA_DIR: join(options.dir, `data-runner-${i}`),
      };
      runners.push(await AppChild.start(runnerEnv, join(options.dir, `runner-${i}.log`), nodeArgs));
    }
    sim.setWebhookUrl(app.webhookUrl);
    const rig = new Rig(options, redisServer, redis, sim, app, agents, prefix, secret, redisDir);
    rig.#pipe = pipe;
    rig.runners = runners;
    rig.#env = env;
    rig.appSpawnedAt = booted;
    for (const repo of repos) rig.repos.set(repo.full_name, repo);
    // The start-up reconciliation runs first; measurements start from a quiet app.
    await waitUntil(
      "the start-up reconciliation",
      async () => ((await rig.store.namespaceMarks.lastReconcile()) ?? 0) >= booted,
      options.startupTimeoutMs ?? 60_000,
    );
    rig.startupReconciledAt = Date.now();
    await rig.quiesce();
    return rig;
  }

  repo(fullName: string): SimRepo {
    return this.repos.get(fullName)!;
  }

  /**
   * A bare Probot app (tools/bench/bareProbotProcess.ts) on its own port, with the app's key, secret
   * and logging: the yardstick for acknowledging deliveries. The caller stops it.
   */
  async startBareProbot(): Promise<AppChild> {
    const env = { ...this.#env, PORT: String(await freePort()) };
    return AppChild.start(env, join(this.options.dir, "bare-probot.log"), [], BARE_PROBOT_ENTRY);
  }

  /** What the process that started the issue's agent reported of it (agent.started): the app's, or a runner's. */
  agentStarted(repo: string, issue: number): AgentStartedEvent | undefined {
    const key = eventKey(repo, issue);
    for (const child of [this.app, ...this.runners]) {
      const event = child.started.get(key);
      if (event) return event;
    }
    return undefined;
  }

  /** A fresh validated ask with one question, as `escalate ask` would post it. */
  static newAsk(): Ask {
    return benchAsk();
  }

  /**
   * Parks `count` gates without going through the app: issues with the agent's ask comment (and,
   * with `inRedis`, the awaiting label) in the simulator, delivered to nobody, and the gate and
   * issue records written through the store modules as the app writes them. Round 0 is allocated first, as
   * the dispatch that ran the asking agent would have. Only while the app is quiet: webhooks
   * raised meanwhile are not delivered.
   */
  async parkGates(repoName: string, count: number, options: { inRedis: boolean }): Promise<ParkedGate[]> {
    const repo = this.repo(repoName);
    const parked: Array<ParkedGate & { ask: Ask; issueRecord: SimIssue }> = [];
    this.sim.setWebhookUrl(undefined);
    try {
      for (let i = 0; i < count; i++) {
        const issue = this.sim.createIssue(repoName, { title: `Bench task ${i}: add a cache`, body: "The lookups are slow; cache them.", author: HUMAN });
        const ask = Rig.newAsk();
        const askComment = this.sim.comment(repoName, issue.number, this.sim.botLogin, renderAskComment(ask));
        if (options.inRedis) this.sim.addLabels(repoName, issue.number, this.sim.botLogin, [AWAITING]);
        parked.push({
          repo: repoName,
          issue: issue.number,
          gateId: String(askComment.id),
          askComment,
          askedAt: Date.parse(askComment.created_at),
          ask,
          issueRecord: issue,
        });
      }
    } finally {
      this.sim.setWebhookUrl(this.app.webhookUrl);
    }
    if (options.inRedis) {
      await inPool(parked, 64, (gate) =>
        storeParkedGate(this.store, {
          repo: repoName,
          issue: gate.issue,
          installationId: repo.installation_id,
          gateId: gate.gateId,
          title: gate.issueRecord.title,
          body: gate.issueRecord.body ?? "",
          issueUrl: gate.issueRecord.html_url,
          askUrl: gate.askComment.html_url,
          askedAt: gate.askedAt,
          askedBy: this.sim.botLogin,
          ask: gate.ask,
        }),
      );
    }
    return parked.map(({ repo: r, issue, gateId, askComment, askedAt }) => ({ repo: r, issue, gateId, askComment, askedAt }));
  }

  /**
   * Parks `count` gates in Redis only (see seedParkedGates), as the store modules write them, on issues the
   * simulator does not hold: for the cost of many parked gates. Only `repoName`'s own measurement may use it.
   */
  seedGates(repoName: string, count: number): Promise<Array<{ repo: string; issue: number; gateId: string }>> {
    const repo = this.repo(repoName);
    return seedParkedGates({
      redisUrl: this.redisServer.url,
      prefix: this.prefix,
      repo: repoName,
      installationId: repo.installation_id,
      webUrl: this.sim.url,
      askedBy: this.sim.botLogin,
      count,
    });
  }

  /** A human answers in the simulator; its webhook goes out through the simulator's dispatcher. Returns when it was posted. */
  reply(gate: { repo: string; issue: number }, body = "SQLite, keep it embedded"): { postedAt: number; comment: SimComment } {
    const postedAt = Date.now();
    const comment = this.sim.comment(gate.repo, gate.issue, HUMAN, body);
    return { postedAt, comment };
  }

  /**
   * Jobs not yet finished: the deliveries, the rounds and the timers, and unless `withFeedback` is
   * false the other queues' and the feedback lanes' entries;
   * delayed ones count.
   */
  async pendingJobs(withFeedback = true): Promise<number> {
    const queues = withFeedback ? this.queues : this.queues.filter((q) => ([QUEUES.inbound, QUEUES.spawn, QUEUES.timeouts] as string[]).includes(q.name));
    const count = (commands: Readonly<Record<string, number>>) => {
      for (const [command, calls] of Object.entries(commands)) this.benchCommands[command] = (this.benchCommands[command] ?? 0) + calls;
    };
    let total = 0;
    if (withFeedback) {
      const lanes = await this.feedback.owing();
      total += await this.feedback.unfinished();
      count({ smembers: 2, evalsha: 1, llen: lanes.length });
    }
    for (const queue of queues) {
      const counts = await queue.getJobCounts(...COUNTED_STATES);
      count(COUNT_COMMANDS);
      total += Object.values(counts).reduce((s, n) => s + n, 0);
    }
    return total;
  }

  /**
   * Waits until the queues are empty and the simulator has delivered every webhook, three polls in
   * a row. With `feedback: false` the feedback queue is not waited for: it drains at the write
   * budget's pace, behind the loop, and a burst of round trips leaves it busy for a while.
   */
  async quiesce(options: { feedback?: boolean; timeoutMs?: number } = {}): Promise<void> {
    let quietTimes = 0;
    await waitUntil(
      options.feedback === false ? "the inbound and spawn queues to drain" : "the queues to drain",
      async () => {
        await this.sim.whenDelivered();
        quietTimes = (await this.pendingJobs(options.feedback !== false)) === 0 ? quietTimes + 1 : 0;
        return quietTimes >= 3;
      },
      options.timeoutMs ?? 120_000,
      50,
    );
  }

  /**
   * Processes below the app process: its agents and theirs (0 when nothing runs), and apart from
   * them the app's one orphan watchdog, which it holds whatever the number of gates.
   */
  appDescendants(): { agents: number; watchdogs: number } {
    const children = new Map<number, number[]>();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      } catch {
        // gone meanwhile
      }
    }
    const counts = { agents: 0, watchdogs: 0 };
    const stack = [...(children.get(this.app.pid) ?? [])];
    while (stack.length > 0) {
      const pid = stack.pop()!;
      if (isWatchdog(pid)) counts.watchdogs++;
      else counts.agents++;
      stack.push(...(children.get(pid) ?? []));
    }
    return counts;
  }

  /**
   * CPU time used so far (ms, from /proc): the app process itself, its reaped children (the agents;
   * the app's watchdog is reaped only when the app ends, and reads a line per agent), redis-server, and this process (the simulator, the pollers, the benchmark).
   * Unlike wall-clock figures, these hardly depend on what else the machine runs.
   */
  async cpu(): Promise<CpuTimes> {
    this.#redisPid ??= Number(/process_id:(\d+)/.exec(await this.redis.info("server"))?.[1]);
    const app = procCpu(this.app.pid);
    const runners = this.runners.map((runner) => procCpu(runner.pid)).reduce((sum, cpu) => sum + cpu.self + cpu.children, 0);
    return { appSelf: app.self, appChildren: app.children, runners, redis: procCpu(this.#redisPid).self, bench: procCpu(process.pid).self };
  }

  /** Redis commands served so far, by command (INFO commandstats). */
  async redisCommands(): Promise<Record<string, number>> {
    const info = await this.redis.info("commandstats");
    const out: Record<string, number> = {};
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[match[1]!] = Number(match[2]);
    return out;
  }

  /** Redis's used_memory (bytes). */
  async usedMemory(): Promise<number> {
    const info = await this.redis.info("memory");
    return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
  }

  /** MEMORY USAGE of `key` with every element sampled (0 when the key does not exist). */
  async keyBytes(key: string): Promise<number> {
    return Number((await this.redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
  }

  /** Every key of the app's namespace with its MEMORY USAGE. */
  async namespaceBytes(): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    let cursor = "0";
    do {
      const [next, keys] = await this.redis.scan(cursor, "MATCH", `${this.prefix}:*`, "COUNT", 1000);
      cursor = next;
      for (const key of keys) sizes.set(key, await this.keyBytes(key));
    } while (cursor !== "0");
    return sizes;
  }

  async close(): Promise<void> {
    await Promise.all([this.app, ...this.runners].map((child) => child.stop().catch(() => undefined)));
    await Promise.all(this.queues.map((q) => q.close().catch(() => undefined)));
    await this.redis.quit().catch(() => this.redis.disconnect());
    await this.sim.stop().catch(() => undefined);
    await this.redisServer.stop();
    rmSync(this.redisDir, { recursive: true, force: true });
    this.#pipe?.close();
  }
}

export { sleep };
