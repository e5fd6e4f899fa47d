import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { withDeadline } from "../deadline.js";
import { handleInbound } from "../loop/handleInbound.js";
import { processTimeout } from "../loop/timeouts.js";
import { reconcileAll } from "../reconcile/reconcileAll.js";
import { InboundEventSchema, TimeoutJobSchema } from "../queue/jobs.js";
import { QUEUES } from "../queue/names.js";
import type { Services } from "../services.js";
import { processFeedback } from "../workers/processFeedback.js";
import { processSpawn } from "../workers/processSpawn.js";

export interface LoopWorkers {
  inbound: Worker;
  spawn: Worker;
  feedback: Worker;
  timeouts: Worker;
  maintenance: Worker;
  /** Stops taking jobs, gives running agents `graceMs`, then stops them so their jobs are retried. */
  close(graceMs: number): Promise<void>;
}

/** Raised inside a spawn job stopped by shutdown, so BullMQ retries it instead of completing it. */
class ShutdownInterrupt extends Error {
  override name = "ShutdownInterrupt";
}

/**
 * Raised inside a spawn job whose lock this worker could not renew (Redis lost it, or it expired
 * while Redis was unreachable): another worker may already re-run the round, so this agent stops.
 */
class LockLost extends Error {
  override name = "LockLost";
}

/**
 * Spawn jobs' lock: renewed every 10 s while this process lives, however long the agent runs, so
 * its length only bounds how soon a dead worker's round is re-run (lock expiry plus one stalled
 * check: 25 s at most). A stalled round is re-run rather than failed after the first stall, as
 * BullMQ does by default, which would strand its answered gate in "resuming"; the bound only stops
 * a round that kills its worker every time.
 */
const SPAWN_LOCK = { lockDuration: 20_000, stalledInterval: 5_000, maxStalledCount: 10 } as const;

export function startWorkers(services: Services, connection: Redis): LoopWorkers {
  const prefix = services.config.redisPrefix;
  /** The agents this process runs, by spawn job id. */
  const running = new Map<string, AbortController>();
  const inbound = new Worker(
    QUEUES.inbound,
    async (job: Job) => handleInbound(services, InboundEventSchema.parse(job.data)),
    { connection, prefix, concurrency: 8 },
  );
  const spawn = new Worker(
    QUEUES.spawn,
    async (job: Job) => {
      const controller = new AbortController();
      const jobId = job.id ?? "";
      running.set(jobId, controller);
      const { repo, issue } = job.data as { repo: string; issue: number };
      const unregister = services.agents.register(repo, issue, controller);
      try {
        const outcome = await processSpawn(services, job, controller.signal);
        const reason: unknown = controller.signal.reason;
        if (reason instanceof ShutdownInterrupt || reason instanceof LockLost) throw reason;
        return outcome;
      } finally {
        unregister();
        if (running.get(jobId) === controller) running.delete(jobId);
      }
    },
    { connection, prefix, concurrency: services.config.agent.concurrency, ...SPAWN_LOCK },
  );
  spawn.on("lockRenewalFailed", (jobIds: string[]) => {
    for (const id of jobIds) {
      const controller = running.get(id);
      if (!controller || controller.signal.aborted) continue;
      services.log.warn({ job: id }, "lost the lock of a running spawn job; stopping its agent so the round is not run twice");
      controller.abort(new LockLost(`lost the lock of job ${id}`));
    }
  });
  // One writer at a time keeps status-comment edits ordered and within GitHub's write pacing.
  const feedback = new Worker(QUEUES.feedback, async (job: Job) => processFeedback(services, job), { connection, prefix, concurrency: 1 });
  const timeouts = new Worker(
    QUEUES.timeouts,
    async (job: Job) => {
      const { gateId, sequence } = TimeoutJobSchema.parse(job.data);
      return processTimeout(services, gateId, sequence);
    },
    { connection, prefix, concurrency: 4 },
  );
  const maintenance = new Worker(
    QUEUES.maintenance,
    async () => reconcileAll(services, { lookbackMs: services.config.reconcileLookbackSeconds * 1000 }),
    { connection, prefix, concurrency: 1, lockDuration: 120_000 },
  );
  for (const [name, worker] of Object.entries({ inbound, spawn, feedback, timeouts, maintenance })) {
    worker.on("failed", (job, error) => services.log.warn({ queue: name, job: job?.id, err: error }, "job failed"));
    worker.on("error", (error) => services.log.error({ queue: name, err: error }, "worker error"));
  }
  return {
    inbound,
    spawn,
    feedback,
    timeouts,
    maintenance,
    async close(graceMs: number) {
      const all = [inbound, spawn, feedback, timeouts, maintenance];
      const timer = setTimeout(() => running.forEach((controller) => controller.abort(new ShutdownInterrupt("the app shut down while the agent ran; the round will be retried"))), graceMs);
      const late = () => new Error("workers did not close in time");
      // worker.close() has no deadline of its own: after the grace and the agents' kill, force it.
      await withDeadline(Promise.all(all.map((w) => w.close())), graceMs + services.config.agent.killGraceSeconds * 1000 + 5000, late).catch(() => undefined);
      clearTimeout(timer);
      await withDeadline(Promise.all(all.map((w) => w.close(true))), 3000, late).catch(() => undefined);
    },
  };
}
