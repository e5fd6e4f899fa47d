import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Gate } from "../domain.js";
import { DEFAULT_WRITE_WINDOWS, WriteBudget } from "../github/writeBudget.js";
import type { CountedQueue } from "../queue/queues.js";
import { connectedRunners, roundsByRunner, type SpawnQueue } from "../queue/spawnQueue.js";
import type { Services } from "../services/services.js";

/** Ask → answer: minutes to days. */
const ANSWER_BUCKETS = [30, 60, 300, 900, 1800, 3600, 7200, 14400, 28800, 86400, 172800, 604800];
/** Trigger (an answer, a default, a dispatch) → agent started: the loop's own latency, sub-second to a minute. */
const SPAWN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];
/** Spawn → exit: the agent's own time, seconds to the AGENT_TIMEOUT. */
const RUN_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];
const JOB_STATES = ["waiting", "active", "delayed", "failed"] as const;

export interface MetricsOptions {
  /** Queues whose job counts are exported; read on each scrape. */
  queues?: () => CountedQueue[];
  /** The spawn queue, whose workers are the runners: rounds running per runner, runners seen. */
  spawn?: () => Pick<SpawnQueue, "getWorkers" | "getActive">;
  /** Bound on the Redis reads of one scrape. */
  scrapeTimeoutMs?: number;
}

/**
 * The app's Prometheus metrics, in a registry of its own (never prom-client's global one, so two
 * apps in one process, as in tests, do not collide). Counters and histograms follow the loop's
 * events; gauges read Redis when scraped. The process's own metrics (CPU, memory, heap, event-loop
 * lag, handles) keep prom-client's standard names, `process_*` and `nodejs_*`, so stock dashboards fit.
 */
export class LoopMetrics {
  readonly registry = new Registry();

  constructor(services: Pick<Services, "config" | "events" | "gates" | "writeBudgetLog">, options: MetricsOptions = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const timeoutMs = options.scrapeTimeoutMs ?? 2000;
    // One Redis read per scrape feeds the three store gauges, whichever prom-client collects first.
    let inFlight: Promise<void> | undefined;
    const readStore = () =>
      (inFlight ??= (async () => {
        try {
          const gates = await bounded(services.gates.openGates(), timeoutMs);
          open.set(gates.length);
          overdue.set(gates.filter((g) => g.overdueAt !== undefined).length);
          oldest.set(gates.length > 0 ? Math.max(0, (Date.now() - Math.min(...gates.map((g) => g.askedAt))) / 1000) : 0);
          redisUp.set(1);
        } catch {
          redisUp.set(0);
        }
      })().finally(() => (inFlight = undefined)));
    const redisUp = new Gauge({
      name: "escalation_redis_up",
      help: "1 when the last scrape could read the gate store, else 0.",
      registers,
      collect: readStore,
    });
    const open = new Gauge({
      name: "escalation_open_gates",
      help: "Gates awaiting a human answer (read from Redis at scrape time).",
      registers,
      collect: readStore,
    });
    const overdue = new Gauge({
      name: "escalation_overdue_gates",
      help: "Open gates whose reminder ladder ran out without an answer (read from Redis at scrape time).",
      registers,
      collect: readStore,
    });
    const oldest = new Gauge({
      name: "escalation_oldest_open_gate_age_seconds",
      help: "Age of the oldest open gate, 0 when none is open.",
      registers,
      collect: readStore,
    });
    const answers = new Counter({
      name: "escalation_answers_total",
      help: "Gates answered, by source: a human reply or the defaults taken at timeout.",
      labelNames: ["source"],
      registers,
    });
    const askToAnswer = new Histogram({
      name: "escalation_ask_to_answer_seconds",
      help: "Human time: from the ask comment to its answer, by source (agent time is escalation_agent_run_seconds).",
      labelNames: ["source"],
      buckets: ANSWER_BUCKETS,
      registers,
    });
    const triggerToSpawn = new Histogram({
      name: "escalation_trigger_to_spawn_seconds",
      help: "The loop's latency: from the event that triggered a spawn to the agent process starting, by trigger: answer (a human's), default (taken at a timeout), dispatch (/agent, the label, /retry).",
      labelNames: ["trigger"],
      buckets: SPAWN_BUCKETS,
      registers,
    });
    const agentRun = new Histogram({
      name: "escalation_agent_run_seconds",
      help: "Agent time: from the agent process starting to its exit, per run, by outcome (human time is escalation_ask_to_answer_seconds).",
      labelNames: ["outcome"],
      buckets: RUN_BUCKETS,
      registers,
    });
    const spawns = new Counter({ name: "escalation_spawn_outcomes_total", help: "Agent runs that ended, by outcome.", labelNames: ["outcome"], registers });
    const opened = new Counter({ name: "escalation_gates_opened_total", help: "Gates opened (agent questions recorded).", registers });
    const closed = new Counter({ name: "escalation_gates_closed_total", help: "Gates closed without an answer, by state.", labelNames: ["state"], registers });
    const deliveries = new Counter({
      name: "escalation_webhook_deliveries_total",
      help: "Webhook deliveries handled, by event and result.",
      labelNames: ["event", "result"],
      registers,
    });
    const githubWrites = new Counter({
      name: "escalation_github_writes_total",
      help: "Content-creating GitHub writes of the feedback worker, by outcome: written, coalesced (moot, not sent), deferred (budget spent or paused), limited (GitHub refused it).",
      labelNames: ["outcome"],
      registers,
    });
    // GitHub's pauses live in Redis (every replica honours them): read at scrape time. An installation
    // seen paused stays in the series at 0 once its pause is over.
    const budget = new WriteBudget(services.writeBudgetLog, services.config.githubWrites ?? DEFAULT_WRITE_WINDOWS);
    const seenPaused = new Set<number>();
    let pausesInFlight: Promise<Array<{ installationId: number; secondsLeft: number }>> | undefined;
    const readPauses = () => (pausesInFlight ??= bounded(budget.paused(), timeoutMs).finally(() => (pausesInFlight = undefined)));
    const setPauses = async (gauge: Gauge, value: (p: { secondsLeft: number }) => number) => {
      try {
        const paused = await readPauses();
        for (const p of paused) seenPaused.add(p.installationId);
        for (const id of seenPaused) {
          const now = paused.find((p) => p.installationId === id);
          gauge.set({ installation: String(id) }, now ? value(now) : 0);
        }
      } catch {
        // Left at the last value; escalation_redis_up says the store is unreachable.
      }
    };
    new Gauge({
      name: "escalation_github_write_paused",
      help: "1 while GitHub's secondary rate limit has paused the installation's writes (read from Redis at scrape time), else 0.",
      labelNames: ["installation"],
      registers,
      async collect() {
        await setPauses(this, () => 1);
      },
    });
    new Gauge({
      name: "escalation_github_write_pause_seconds",
      help: "Seconds until the installation may write to GitHub again, 0 when not paused.",
      labelNames: ["installation"],
      registers,
      async collect() {
        await setPauses(this, (p) => p.secondsLeft);
      },
    });
    if (options.queues) {
      const queues = options.queues;
      new Gauge({
        name: "escalation_queue_jobs",
        help: "Jobs in the app's BullMQ queues, by queue and state (read at scrape time).",
        labelNames: ["queue", "state"],
        registers,
        async collect() {
          await Promise.all(
            queues().map(async (queue) => {
              try {
                const counts = await bounded(queue.getJobCounts(...JOB_STATES), timeoutMs);
                for (const state of JOB_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
              } catch {
                // Left at the last value; escalation_redis_up says the store is unreachable.
              }
            }),
          );
        },
      });
    }
    if (options.spawn) runnerGauges(registers, options.spawn, timeoutMs);
    // Pre-create the common series so dashboards see zeros rather than gaps.
    for (const source of ["human", "default"]) answers.inc({ source }, 0);
    for (const outcome of ["success", "failure", "timeout", "stopped"]) spawns.inc({ outcome }, 0);
    for (const outcome of ["written", "coalesced", "deferred", "limited"]) githubWrites.inc({ outcome }, 0);

    const events = services.events;
    events.on("gate.opened", () => opened.inc());
    events.on("gate.answered", ({ gate, source }) => {
      answers.inc({ source });
      const answeredAt = gate.answeredAt ?? Date.now();
      askToAnswer.observe({ source }, Math.max(0, (answeredAt - gate.askedAt) / 1000));
    });
    events.on("gate.closed", ({ state }) => closed.inc({ state }));
    events.on("agent.started", ({ replyToSpawnMs, resumedGate }) => {
      triggerToSpawn.observe({ trigger: triggerOf(resumedGate) }, Math.max(0, replyToSpawnMs / 1000));
    });
    events.on("agent.exited", ({ outcome, durationMs }) => {
      spawns.inc({ outcome });
      agentRun.observe({ outcome }, Math.max(0, durationMs / 1000));
    });
    events.on("webhook.delivery", ({ event, result }) => deliveries.inc({ event, result }));
    events.on("github.write", ({ outcome }) => githubWrites.inc({ outcome }));
  }

  /** The exposition text (Prometheus format). */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** What started a round: the resumed gate's last answer (a human's, or a default at its timeout), else a dispatch. */
export function triggerOf(resumed: Gate | undefined): "answer" | "default" | "dispatch" {
  if (!resumed) return "dispatch";
  const last = [...resumed.answers].sort((a, b) => a.at - b.at).at(-1);
  return last?.source === "default" ? "default" : "answer";
}

async function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** A runner not seen connected for this long leaves the runners' gauges. */
const RUNNER_SEEN_MS = 60_000;

/**
 * The runners' gauges, read at scrape time from the spawn queue: its workers connected (each a
 * runner, by RUNNER_NAME) and its active jobs by the worker that took them. A runner seen by a
 * scrape within the last minute counts, so a scrape between a runner's reconnects misses none; one
 * gone longer leaves the series.
 */
function runnerGauges(registers: Registry[], spawn: () => Pick<SpawnQueue, "getWorkers" | "getActive">, timeoutMs: number): void {
  const seenAt = new Map<string, number>();
  // One read per scrape feeds both gauges, whichever prom-client collects first.
  let inFlight: Promise<Map<string, number>> | undefined;
  const read = () =>
    (inFlight ??= (async () => {
      const now = Date.now();
      for (const name of await bounded(connectedRunners(spawn()), timeoutMs)) seenAt.set(name, now);
      for (const [name, at] of seenAt) if (now - at > RUNNER_SEEN_MS) seenAt.delete(name);
      return bounded(roundsByRunner(spawn()), timeoutMs);
    })().finally(() => (inFlight = undefined)));
  new Gauge({
    name: "escalation_runners",
    help: "Runners (the spawn queue's workers, by RUNNER_NAME) seen connected within the last minute (read at scrape time).",
    registers,
    async collect() {
      try {
        await read();
        this.set(seenAt.size);
      } catch {
        // Left at the last value; escalation_redis_up says the store is unreachable.
      }
    },
  });
  let shown = new Set<string>();
  new Gauge({
    name: "escalation_rounds_running",
    help: "Rounds running now, by the runner that took each (the spawn queue's active jobs, read at scrape time); 0 for a runner seen within the last minute that runs none.",
    labelNames: ["runner"],
    registers,
    async collect() {
      try {
        const running = await read();
        const runners = new Set([...seenAt.keys(), ...running.keys()]);
        for (const runner of shown) if (!runners.has(runner)) this.remove({ runner });
        for (const runner of runners) this.set({ runner }, running.get(runner) ?? 0);
        shown = runners;
      } catch {
        // Left at the last value.
      }
    },
  });
}
