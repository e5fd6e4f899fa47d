import { DelayedError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { withDeadline } from "../deadline.js";
import { handleInbound } from "../gates/handleInbound.js";
import { describeOutcome } from "../gates/outcome.js";
import { processLadderStep } from "./reminderLadder.js";
import { processTimeout } from "./timeouts.js";
import { reconcileAll } from "../reconcile/reconcileAll.js";
import { LadderJobSchema, TimeoutJobSchema } from "./payloads.js";
import { InboundStream } from "./inboundStream.js";
import { startInboundWorker, type InboundWorker } from "./inboundWorker.js";
import { ClosableConnection } from "./closableConnection.js";
import { QUEUES } from "./names.js";
import type { Services } from "../services.js";
import { processFeedback } from "../status/processFeedback.js";
import { FeedbackOutbox } from "../status/feedbackOutbox.js";
import { startFeedbackWorker, type FeedbackWorker } from "../status/feedbackWorker.js";
import { processSpawn } from "./processSpawn.js";
import { LOCK_RENEW_MS } from "./roundGuards.js";
import { processMirrorJob, type MirrorPorts } from "../mirror/processMirrorJob.js";
import { slackApi } from "../mirror/slack.js";

export interface LoopWorkers {
  inbound: InboundWorker;
  spawn: Worker;
  feedback: FeedbackWorker;
  timeouts: Worker;
  maintenance: Worker;
  /** The Slack mirror's worker, when Slack is configured. */
  mirror: Worker | undefined;
  /** Stops taking jobs, gives running agents `graceMs`, then stops them so their jobs are retried. */
  close(graceMs: number): Promise<void>;
}

/** Why a spawn job stopped by shutdown is not completed: it goes back to the queue for the next worker. */
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
 * Job locks are renewed every 2 s while this process lives, however long the job (an agent) runs,
 * so their length only bounds how soon a dead worker's job is re-run: lock expiry plus up to two
 * stalled checks, 20-30 s (BullMQ's defaults take up to 90 s); and a worker whose job vanished (Redis
 * wiped) learns it within two renewals and stops the agent (LockLost). A stalled job is re-run up to
 * 10 times rather than failed at its second stall, as BullMQ does by default, which would strand an
 * answered gate in "resuming" or drop an event; the bound only stops a job that kills its worker
 * every time.
 */
const RECOVERY = { lockDuration: 20_000, lockRenewTime: LOCK_RENEW_MS, stalledInterval: 5_000, maxStalledCount: 10 } as const;

export function startWorkers(services: Services, connection: Redis): LoopWorkers {
  const prefix = services.config.redisPrefix;
  const mirrorWorker = (ports: MirrorPorts) =>
    new Worker(QUEUES.mirror, async (job: Job) => processMirrorJob(ports, job), { connection, prefix, concurrency: 4 }, ClosableConnection);
  /** The agents this process runs, by spawn job id. */
  const running = new Map<string, AbortController>();
  // The namespace's epoch as this process starts: a different one later means Redis was wiped meanwhile.
  const startupEpoch = services.namespaceMarks.epoch().then(
    (epoch) => epoch.at,
    () => undefined,
  );
  // The outcome in words: what operators read in the stream of outcomes, as before it was typed.
  const inbound = startInboundWorker(
    { stream: new InboundStream(connection, prefix), log: services.log, handle: async (event) => describeOutcome(await handleInbound(services, event)) },
    connection,
  );
  const spawn = new Worker(
    QUEUES.spawn,
    async (job: Job, token?: string) => {
      const controller = new AbortController();
      const jobId = job.id ?? "";
      running.set(jobId, controller);
      const { repo, issue } = job.data as { repo: string; issue: number };
      const unregister = services.agents.register(repo, issue, controller);
      try {
        const outcome = await processSpawn(services, job, controller.signal, { startupEpoch: await startupEpoch });
        const reason: unknown = controller.signal.reason;
        if (reason instanceof ShutdownInterrupt) {
          // Back to the queue without using up an attempt: deploys must not exhaust a round's retries.
          await job.moveToDelayed(Date.now() + 1000, token);
          throw new DelayedError(reason.message);
        }
        if (reason instanceof LockLost) throw reason; // the job is no longer ours to complete or fail
        return outcome;
      } finally {
        unregister();
        if (running.get(jobId) === controller) running.delete(jobId);
      }
    },
    { connection, prefix, concurrency: services.config.agent.concurrency, ...RECOVERY },
    ClosableConnection,
  );
  spawn.on("lockRenewalFailed", (jobIds: string[]) => {
    for (const id of jobIds) {
      const controller = running.get(id);
      if (!controller || controller.signal.aborted) continue;
      services.log.warn({ job: id }, "lost the lock of a running spawn job; stopping its agent so the round is not run twice");
      controller.abort(new LockLost(`lost the lock of job ${id}`));
    }
  });
  // One writer at a time across replicas (a lease): src/status/feedbackWorker.ts.
  const feedback = startFeedbackWorker(
    { outbox: new FeedbackOutbox(connection, prefix), log: services.log, write: (entry, saveProgress) => processFeedback(services, entry, saveProgress) },
    connection,
  );
  const timeouts = new Worker(
    QUEUES.timeouts,
    async (job: Job) => {
      if (job.name === "ladder") return describeOutcome(await processLadderStep(services, LadderJobSchema.parse(job.data)));
      const { gateId, sequence } = TimeoutJobSchema.parse(job.data);
      return describeOutcome(await processTimeout(services, gateId, sequence));
    },
    { connection, prefix, concurrency: 4, ...RECOVERY },
    ClosableConnection,
  );
  const maintenance = new Worker(
    QUEUES.maintenance,
    // The start-up run reads every repository (webhooks were lost while the app was down); the scheduled ones, the active ones.
    async (job: Job) => {
      const full = (job.data as { full?: unknown } | undefined)?.full === true;
      return reconcileAll(services, { lookbackMs: services.config.reconcileLookbackSeconds * 1000, full });
    },
    { connection, prefix, concurrency: 1, lockDuration: 120_000 },
    ClosableConnection,
  );
  // Slack being slow or down never touches the loop: the mirror has its own queue, and its calls a short timeout.
  const slackConfig = services.config.slack;
  const mirror = slackConfig && mirrorWorker({ ...services, config: slackConfig, slack: slackApi(slackConfig, services.log.child({ name: "mirror" })) });
  for (const [name, worker] of Object.entries({ spawn, timeouts, maintenance, ...(mirror ? { mirror } : {}) })) {
    worker.on("failed", (job, error) => services.log.warn({ queue: name, job: job?.id, err: error }, "job failed"));
    worker.on("error", (error) => services.log.error({ queue: name, err: error }, "worker error"));
  }
  return {
    inbound,
    spawn,
    feedback,
    timeouts,
    maintenance,
    mirror,
    async close(graceMs: number) {
      const all = [spawn, timeouts, maintenance, ...(mirror ? [mirror] : [])];
      const timer = setTimeout(
        () => running.forEach((controller) => controller.abort(new ShutdownInterrupt("the app shut down while the agent ran; the round will be retried"))),
        graceMs,
      );
      const late = () => new Error("workers did not close in time");
      // worker.close() has no deadline of its own: after the grace and the agents' kill, force it.
      const deadlineMs = graceMs + services.config.agent.killGraceSeconds * 1000 + 5000;
      await withDeadline(Promise.all([inbound.close(deadlineMs), feedback.close(deadlineMs), ...all.map((w) => w.close())]), deadlineMs, late).catch(
        () => undefined,
      );
      clearTimeout(timer);
      await withDeadline(Promise.all(all.map((w) => w.close(true))), 3000, late).catch(() => undefined);
    },
  };
}
