import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { withDeadline } from "../deadline.js";
import { StoreUnavailableError } from "../errors.js";
import type { InboundEvent, LadderJob, MirrorJob, SpawnJob, TimeoutJob } from "../payloads.js";
import { openSpawnQueue, spawnJobOptions, type SpawnQueue } from "./spawnQueue.js";
import { ClosableConnection } from "./closableConnection.js";
import { KEEP_DEDUPLICATING, KEEP_FAILED } from "./jobRetention.js";
import { addDelivery, deliveredEvent, forgetDelivery, openInboundQueue, type InboundQueue } from "./inboundQueue.js";
import { FeedbackQueue } from "./feedbackQueue.js";
import { QUEUES, jobIds, type CountedState } from "../queueNames.js";

/** What the health check and the metrics read of a queue. */
export interface CountedQueue {
  readonly name: string;
  getJobCounts(...states: CountedState[]): Promise<Partial<Record<string, number>>>;
}

const KEEP = { removeOnComplete: KEEP_DEDUPLICATING, removeOnFail: KEEP_FAILED } satisfies JobsOptions;

/** Mirror retries 1 s, 2 s, 4 s … about two minutes in all: a Slack hiccup heals, a long outage is dropped. */
const MIRROR_JOB = {
  attempts: 8,
  backoff: { type: "exponential", delay: 1000 },
  ...KEEP,
} satisfies JobsOptions;

/** The producer side of every queue: the loop's BullMQ queues and the Slack mirror's. */
export class Queues {
  readonly inbound: InboundQueue;
  readonly spawn: SpawnQueue;
  readonly feedback: FeedbackQueue;
  readonly timeouts: Queue<TimeoutJob | LadderJob>;
  readonly maintenance: Queue;
  readonly mirror: Queue<MirrorJob>;

  /**
   * `onError` hears the queues' connection errors. BullMQ re-emits them as each queue's "error"
   * event, and one without a listener throws: an unhandled rejection when the connection drops
   * while a queue is still initialising (a Redis restart at start-up, or a close right after it).
   */
  constructor(connection: Redis, prefix: string, onError: (error: Error, queue: string) => void = () => undefined) {
    const open = <Data>(name: string) => new Queue<Data>(name, { connection, prefix }, ClosableConnection);
    this.inbound = openInboundQueue(connection, prefix);
    this.spawn = openSpawnQueue(connection, prefix);
    this.feedback = new FeedbackQueue(connection, prefix);
    this.timeouts = open(QUEUES.timeouts);
    this.maintenance = open(QUEUES.maintenance);
    this.mirror = open(QUEUES.mirror);
    for (const queue of this.bullQueues()) {
      queue.on("error", (error: Error) => onError(error, queue.name));
    }
  }

  /** A full reconciliation now, and an incremental one every `everySeconds` (one scheduler however many replicas start). */
  async scheduleReconcile(everySeconds: number | undefined): Promise<void> {
    await this.maintenance.add("reconcile", { full: true }, { removeOnComplete: 100, removeOnFail: 100 });
    if (everySeconds !== undefined) {
      // Its first pass one interval from now: BullMQ's `every` fires at once, a second pass beside the full one.
      await this.maintenance.upsertJobScheduler(
        "reconcile",
        { every: everySeconds * 1000, startDate: Date.now() + everySeconds * 1000 },
        { name: "reconcile", opts: { removeOnComplete: 100, removeOnFail: 100 } },
      );
    } else {
      await this.maintenance.removeJobScheduler("reconcile");
    }
  }

  /** A delayed job that applies defaults or posts a reminder when the gate is still open then. */
  async addTimeout(gateId: string, delayMs: number, sequence: number): Promise<void> {
    await this.timeouts.add(
      "timeout",
      { gateId, sequence },
      { ...KEEP, jobId: jobIds.timeout(gateId, sequence), delay: Math.max(0, delayMs), attempts: 5, backoff: { type: "exponential", delay: 5000 } },
    );
  }

  /** A delayed step of the gate's reminder ladder; its id makes scheduling it again (a rebuild) a no-op. */
  async addLadderStep(job: LadderJob, delayMs: number): Promise<void> {
    await this.timeouts.add("ladder", job, {
      ...KEEP,
      jobId: jobIds.ladder(job.gateId, job.step),
      delay: Math.max(0, delayMs),
      attempts: 5,
      backoff: { type: "exponential", delay: 5000 },
    });
  }

  /**
   * Queues a webhook event; the delivery id makes a redelivered event a no-op. A deadline turns an
   * unreachable Redis into a fast failure.
   */
  async addInbound(event: InboundEvent, deadlineMs = 3000): Promise<void> {
    await withDeadline(addDelivery(this.inbound, event), deadlineMs, () => new StoreUnavailableError(`Redis did not take the event within ${deadlineMs} ms`));
  }

  /** Takes a withdrawn text out of the delivery that brought it (src/queue/inboundQueue.ts); 1 when there was one. */
  async forgetDelivery(deliveryId: string): Promise<number> {
    return forgetDelivery(this.inbound, deliveryId);
  }

  /** A delivery's event as its job keeps it (src/queue/inboundQueue.ts); undefined when gone or withdrawn. */
  deliveredEvent(deliveryId: string): Promise<InboundEvent | undefined> {
    return deliveredEvent(this.inbound, deliveryId);
  }

  /**
   * A round for an answer or a dispatch; `jobId` (src/queueNames.ts) makes the same answer queued
   * twice within a day one job. `attempts` bounds the agent's retries on failure (the retries before
   * the attempts_exhausted gate), 2 s, 4 s … apart.
   */
  async addSpawn(job: SpawnJob, jobId: string, attempts: number): Promise<void> {
    await this.spawn.add("round", job, spawnJobOptions(jobId, attempts));
  }

  /** A Slack mirror job; its id makes the same post or update queued twice (a redelivered event) one job. */
  async addMirror(type: MirrorJob["type"], gateId: string, state?: string): Promise<void> {
    await this.mirror.add(type, { type, gateId }, { ...MIRROR_JOB, jobId: jobIds.mirror(type, gateId, state) });
  }

  /** Every queue, the deliveries first: what the health check and the metrics read. */
  all(): CountedQueue[] {
    return [this.inbound, this.spawn, this.feedback, this.timeouts, this.maintenance, this.mirror];
  }

  /** The BullMQ queues: their connection errors go to `onError`, and close() closes them. */
  bullQueues(): Queue[] {
    return [this.inbound, this.spawn, this.feedback.queue, this.timeouts, this.maintenance, this.mirror] as Queue[];
  }

  async close(): Promise<void> {
    await Promise.all(this.bullQueues().map((queue) => queue.close()));
  }
}

/** Jobs of a BullMQ queue waiting, running or due later: 0 when it owes nothing. */
export async function unfinishedJobs(queue: Pick<Queue, "getJobCounts">): Promise<number> {
  const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "waiting-children", "paused");
  return Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
}
