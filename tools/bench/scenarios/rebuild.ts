import { renderAskComment } from "../../../src/protocol/ask.js";
import { QUEUES } from "../../../src/queueNames.js";
import type { GitHubSimulator, RateBudget } from "../../simulator/index.js";
import { waitUntil } from "../pool.js";
import { HUMAN, Rig } from "../rig.js";

/**
 * (7) Reconciliation at scale, on the simulator's installation of one organisation:
 *   a. the rebuild after a Redis wipe: `gates` questions waiting over `repos` repositories (each an
 *      issue with the agent's ask and the awaiting label, asked last week), a fresh Redis, the app
 *      started: its start-up reconciliation, timed until every gate is open in Redis again, with its
 *      GitHub API calls and the installation's rate limit left after it;
 *   b. periodic passes over an idle installation of `idleRepos` repositories (each with last week's
 *      history, a few with a question waiting): API calls a pass, and with one repository active.
 */
export interface RebuildResult {
  repos: number;
  gates: number;
  /** App process started → every gate open in Redis and the pass finished. */
  bootToRebuiltSeconds: number;
  /** The start-up reconciliation alone (its recorded start → seen finished). */
  passSeconds: number;
  gatesRebuilt: number;
  apiCalls: number;
  callsPerGate: number;
  callsByRoute: Record<string, number>;
  /**
   * CPU ms per rebuilt gate, from /proc: the app process (its boot included), redis-server, and this
   * process from the end of seeding (the simulator answering, the benchmark polling).
   */
  cpuPerGate: { app: number; redis: number; simulator: number };
  /** The installation's primary budgets after the rebuild. */
  remaining: { core: RateBudget; graphql: RateBudget; search: RateBudget };
}

export interface IdlePassResult {
  repos: number;
  gatedRepos: number;
  /** The start-up (full) pass: every repository read. */
  fullPassCalls: number;
  fullPassSeconds: number;
  /** Incremental passes of the idle installation. */
  idlePassCalls: number[];
  idlePassSeconds: number[];
  idleCallsByRoute: Record<string, number>;
  /** Calls of the idle passes about a repository with no open gate and no activity: the target is none. */
  idleRepoCalls: number;
  /** A pass after one issue of an idle repository got a comment (its webhook lost). */
  activePassCalls: number;
}

/** Last week, in GitHub's whole seconds: history older than any pass's window. */
function lastWeek(): string {
  return new Date(Date.now() - 7 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The agent's ask comment, as `escalate ask` posts it under the App's bot. */
const askBy = (bot: string) => ({ author: bot, body: renderAskComment(Rig.newAsk()) });

const repoName = (prefix: string, i: number) => `acme/${prefix}-${String(i).padStart(4, "0")}`;

function seedGates(sim: GitHubSimulator, repos: number, gates: number): void {
  const at = lastWeek();
  for (let r = 0; r < repos; r++) {
    const repo = repoName("svc", r);
    sim.addRepo(repo);
    sim.setPermission(repo, HUMAN, "write");
    const here = Math.floor(gates / repos) + (r < gates % repos ? 1 : 0);
    sim.seedIssues(
      repo,
      Array.from({ length: here }, (_, i) => ({
        title: `Task ${i}: add a cache`,
        body: "The lookups are slow; cache them.",
        author: HUMAN,
        labels: ["awaiting-human"],
        comments: [askBy(sim.botLogin)],
        at,
      })),
    );
  }
}

function byRoute(calls: ReadonlyArray<{ route: string }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of calls) out[c.route] = (out[c.route] ?? 0) + 1;
  return out;
}

/** A rig whose simulator `prepare` seeded before the app starts; the start-up pass over it may be long. */
function startSeeded(options: { dir: string; log: (line: string) => void }, prepare: Parameters<typeof Rig.start>[0]["prepare"]): Promise<Rig> {
  return Rig.start({ dir: options.dir, agentConcurrency: 4, throttle: false, profile: false, log: options.log, prepare, startupTimeoutMs: 600_000 });
}

export async function measureRebuild(options: { dir: string; repos: number; gates: number; log: (line: string) => void }): Promise<RebuildResult> {
  let seeded = 0;
  const rig = await startSeeded(options, (sim) => {
    seedGates(sim, options.repos, options.gates);
    const usage = process.cpuUsage();
    seeded = (usage.user + usage.system) / 1000;
  });
  try {
    const open = await waitUntil(
      "every gate open in Redis",
      async () => {
        const n = await rig.redis.zcard(rig.store.gates.keys.openGates());
        return n >= options.gates ? n : undefined;
      },
      60_000,
    );
    const finished = Math.max(rig.startupReconciledAt, Date.now() - 25);
    const started = (await rig.store.namespaceMarks.lastReconcile()) ?? rig.appSpawnedAt;
    const calls = rig.sim.calls.filter((c) => c.at >= rig.appSpawnedAt && c.at <= finished);
    const cpu = await rig.cpu();
    const installation = rig.repo("acme/replies").installation_id;
    return {
      repos: options.repos,
      gates: options.gates,
      bootToRebuiltSeconds: (finished - rig.appSpawnedAt) / 1000,
      passSeconds: (rig.startupReconciledAt - started) / 1000,
      gatesRebuilt: open,
      apiCalls: calls.length,
      callsPerGate: calls.length / options.gates,
      callsByRoute: byRoute(calls),
      cpuPerGate: { app: cpu.appSelf / options.gates, redis: cpu.redis / options.gates, simulator: (cpu.bench - seeded) / options.gates },
      remaining: {
        core: rig.sim.rateLimit(installation, "core"),
        graphql: rig.sim.rateLimit(installation, "graphql"),
        search: rig.sim.rateLimit(installation, "search"),
      },
    };
  } finally {
    await rig.close();
  }
}

export async function measureIdlePasses(options: {
  dir: string;
  repos: number;
  gatedRepos: number;
  passes: number;
  log: (line: string) => void;
}): Promise<IdlePassResult> {
  const at = lastWeek();
  const rig = await startSeeded(options, (sim) => {
    for (let r = 0; r < options.repos; r++) {
      const repo = repoName("lib", r);
      sim.addRepo(repo);
      sim.setPermission(repo, HUMAN, "write");
      const waiting = r < options.gatedRepos;
      sim.seedIssues(repo, [
        { title: "Last week's fix", body: "Done.", author: HUMAN, comments: [{ author: HUMAN, body: "Thanks!" }], at },
        ...(waiting ? [{ title: "A question", body: "Cache it.", author: HUMAN, labels: ["awaiting-human"], comments: [askBy(sim.botLogin)], at }] : []),
      ]);
    }
  });
  try {
    const fullPassCalls = rig.sim.calls.filter((c) => c.at >= rig.appSpawnedAt && c.at <= rig.startupReconciledAt).length;
    const fullPassSeconds = (rig.startupReconciledAt - ((await rig.store.namespaceMarks.lastReconcile()) ?? rig.appSpawnedAt)) / 1000;
    const maintenance = rig.queues.find((q) => q.name === QUEUES.maintenance)!;
    // A scheduled pass, as the job scheduler adds it every RECONCILE_INTERVAL: calls from its job to its end.
    const onePass = async (): Promise<{ calls: ReadonlyArray<{ route: string; path: string }>; seconds: number }> => {
      await rig.quiesce();
      const before = (await rig.store.namespaceMarks.lastReconcile()) ?? 0;
      const from = rig.sim.calls.length;
      const t0 = Date.now();
      await maintenance.add("reconcile", {}, { removeOnComplete: 100, removeOnFail: 100 });
      await waitUntil("a scheduled reconciliation", async () => ((await rig.store.namespaceMarks.lastReconcile()) ?? 0) > before, 120_000, 10);
      return { calls: rig.sim.calls.slice(from), seconds: (Date.now() - t0) / 1000 };
    };
    const idle: Array<{ calls: ReadonlyArray<{ route: string; path: string }>; seconds: number }> = [];
    for (let i = 0; i < options.passes; i++) idle.push(await onePass());
    // Someone comments on last week's issue of an idle repository; the webhook is lost.
    rig.sim.setWebhookUrl(undefined);
    rig.sim.comment(repoName("lib", options.repos - 1), 1, HUMAN, "One more thing: the docs.");
    rig.sim.setWebhookUrl(rig.app.webhookUrl);
    const active = await onePass();
    return {
      repos: options.repos,
      gatedRepos: options.gatedRepos,
      fullPassCalls,
      fullPassSeconds,
      idlePassCalls: idle.map((p) => p.calls.length),
      idlePassSeconds: idle.map((p) => p.seconds),
      idleCallsByRoute: byRoute(idle.at(-1)?.calls ?? []),
      idleRepoCalls: idle.flatMap((p) => p.calls).filter((c) => Number(/^\/repos\/acme\/lib-(\d+)\//.exec(c.path)?.[1] ?? -1) >= options.gatedRepos).length,
      activePassCalls: active.calls.length,
    };
  } finally {
    await rig.close();
  }
}
