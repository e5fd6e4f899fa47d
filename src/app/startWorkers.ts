import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { withDeadline } from "../deadline.js";
import { inboundPath } from "../reconcile/inboundPath.js";
import { describeOutcome } from "../gates/outcome.js";
import { processLadderStep } from "../gates/reminderLadder.js";
import { processTimeout } from "../gates/timeouts.js";
import { reconcileAll } from "../reconcile/reconcileAll.js";
import { LadderJobSchema, TimeoutJobSchema } from "../payloads.js";
import { startInboundWorker, type InboundWorker } from "../queue/inboundWorker.js";
import { ClosableConnection } from "../queue/closableConnection.js";
import { QUEUES } from "../queueNames.js";
import type { Services } from "../services/services.js";
import { processFeedback } from "../status/processFeedback.js";
import { startFeedbackWorker, type FeedbackWorker } from "../queue/feedbackWorker.js";
import { roundProcessor } from "../round/runRound.js";
import { startSpawnWorker, type SpawnWorker } from "../queue/spawnWorker.js";
import { JOB_TIMING, lockOptions } from "../queue/jobLocks.js";
import { processMirrorJob, type MirrorPorts } from "../mirror/processMirrorJob.js";
import { slackApi } from "../mirror/slack.js";

export interface LoopWorkers {
  /** The loop's workers: not on a runner (ROLE=runner). */
  inbound: InboundWorker | undefined;
  feedback: FeedbackWorker | undefined;
  timeouts: Worker | undefined;
  maintenance: Worker | undefined;
  /** The Slack mirror's worker, when Slack is configured. */
  mirror: Worker | undefined;
  /** The rounds' worker: not on an app that runs no agent (ROLE=app). */
  spawn: SpawnWorker | undefined;
  /** Stops taking jobs, gives running agents `graceMs`, then stops them so their jobs are retried. */
  close(graceMs: number): Promise<void>;
}

export function startWorkers(services: Services, connection: Redis): LoopWorkers {
  const { role } = services.config;
  const loop = role === "runner" ? undefined : startLoopWorkers(services, connection);
  const spawn = role === "app" ? undefined : startRoundWorker(services, connection);
  return {
    inbound: loop?.inbound,
    feedback: loop?.feedback,
    timeouts: loop?.timeouts,
    maintenance: loop?.maintenance,
    mirror: loop?.mirror,
    spawn,
    async close(graceMs: number) {
      const bull = loop ? [loop.timeouts, loop.maintenance, ...(loop.mirror ? [loop.mirror] : [])] : [];
      const late = () => new Error("workers did not close in time");
      // worker.close() has no deadline of its own: after the grace and the agents' kill, force it.
      const deadlineMs = graceMs + services.config.agent.killGraceSeconds * 1000 + 5000;
      await withDeadline(
        Promise.all([loop?.inbound.close(deadlineMs), loop?.feedback.close(deadlineMs), spawn?.close(graceMs, deadlineMs), ...bull.map((w) => w.close())]),
        deadlineMs,
        late,
      ).catch(() => undefined);
      await withDeadline(Promise.all(bull.map((w) => w.close(true))), 3000, late).catch(() => undefined);
    },
  };
}

/** The rounds' worker: it runs the agents, under this process's RUNNER_NAME. */
function startRoundWorker(services: Services, connection: Redis): SpawnWorker {
  // The namespace's epoch as this process starts: a different one later means Redis was wiped meanwhile.
  const startupEpoch = services.namespaceMarks.epoch().then(
    (epoch) => epoch.at,
    () => undefined,
  );
  return startSpawnWorker(
    { log: services.log, name: services.config.runnerName, run: roundProcessor(services, startupEpoch) },
    connection,
    services.config.redisPrefix,
    services.config.agent.concurrency,
  );
}

/** Everything but the rounds: deliveries, feedback, timers, reconciliation and the Slack mirror. */
function startLoopWorkers(services: Services, connection: Redis) {
  const prefix = services.config.redisPrefix;
  const mirrorWorker = (ports: MirrorPorts) =>
    new Worker(QUEUES.mirror, async (job: Job) => processMirrorJob(ports, job), { connection, prefix, concurrency: 4 }, ClosableConnection);
  // The outcome in words: what operators read in each delivery job's return value.
  const handle = inboundPath(services);
  const inbound = startInboundWorker({ log: services.log, handle: async (event) => describeOutcome(await handle(event)) }, connection, prefix);
  // One job at a time across replicas (BullMQ's global concurrency): src/queue/feedbackWorker.ts.
  const { feedback: queue } = services.queues;
  const feedback = startFeedbackWorker(
    { lanes: queue.lanes, queue, log: services.log, write: (entry, saveProgress) => processFeedback(services, entry, saveProgress) },
    connection,
    prefix,
  );
  const timeouts = new Worker(
    QUEUES.timeouts,
    async (job: Job) => {
      if (job.name === "ladder") return describeOutcome(await processLadderStep(services, LadderJobSchema.parse(job.data)));
      const { gateId, sequence } = TimeoutJobSchema.parse(job.data);
      return describeOutcome(await processTimeout(services, gateId, sequence));
    },
    { connection, prefix, concurrency: 4, ...lockOptions(JOB_TIMING) },
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
  for (const [name, worker] of Object.entries({ timeouts, maintenance, ...(mirror ? { mirror } : {}) })) {
    worker.on("failed", (job, error) => services.log.warn({ queue: name, job: job?.id, err: error }, "job failed"));
    worker.on("error", (error) => services.log.error({ queue: name, err: error }, "worker error"));
  }
  return { inbound, feedback, timeouts, maintenance, mirror };
}
