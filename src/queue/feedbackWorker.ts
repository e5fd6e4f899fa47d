import { DelayedError, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { ZodError } from "zod";
import { withDeadline } from "../deadline.js";
import { ClosableConnection } from "./closableConnection.js";
import { JOB_TIMING, lockOptions, type JobTiming } from "./jobLocks.js";
import { QUEUES } from "../queueNames.js";
import { WritesDeferred } from "../status/budgetedWriter.js";
import type { FeedbackLanes, LaneEntry } from "../status/feedbackLanes.js";
import { FeedbackJobSchema, type FeedbackJob, type FeedbackQueue, type FeedbackResult } from "./feedbackQueue.js";

export interface FeedbackWorkerPorts {
  lanes: Pick<FeedbackLanes, "head" | "saveProgress" | "finish">;
  /** Asks for a lane's job again (the rest of a lane whose job failed for good), and prepares the queue at start. */
  queue: Pick<FeedbackQueue, "request" | "prepareWriters">;
  log: Pick<Logger, "warn">;
  /** Performs an entry's ops from its progress on, saving progress after each op not to repeat; returns the writes sent. */
  write(entry: LaneEntry, saveProgress: (done: number) => Promise<void>): Promise<number>;
}

export interface FeedbackWorker {
  /** Stops taking jobs (the one running ends first); resume() takes them again. */
  pause(): Promise<void>;
  resume(): void;
  /** Stops taking jobs, lets the running one finish within `deadlineMs`. */
  close(deadlineMs: number): Promise<void>;
}

/** Entries a job writes before it lets the other issues' jobs go first. */
const TURN_ENTRIES = 10;

/** An error no retry can mend: what was recorded does not parse. */
const unmendable = (error: unknown) => error instanceof ZodError || error instanceof SyntaxError;

/** Puts the job off until `at` without using a try, as BullMQ documents for a processor. */
async function putOff(job: Job, token: string | undefined, at: number): Promise<never> {
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}

/**
 * Brings a lane up to date: writes its entries in order until it is empty, ten at a turn. An entry not yet due
 * puts the job off until it is (the lane waits with it); a write the budget or GitHub puts off
 * does the same without using a try. A failing write fails the try: BullMQ retries the job, the
 * entry still first. At the last try (or when the entry does not parse) the job fails with the
 * entry it gave up on, and the rest of the lane gets a job of its own.
 */
async function writeLane(ports: FeedbackWorkerPorts, job: Job<FeedbackJob, FeedbackResult>, token: string | undefined): Promise<FeedbackResult> {
  const parsed = FeedbackJobSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`the feedback job does not parse: ${parsed.error.message}`);
  const data = parsed.data;
  const result: FeedbackResult = { lane: data.lane, entries: 0, writes: 0 };
  for (;;) {
    let entry = await ports.lanes.head(data.lane);
    if (!entry) {
      // From here on, what is queued asks for a job of its own (run after this one), so nothing waits unasked.
      await job.removeDeduplicationKey();
      entry = await ports.lanes.head(data.lane);
      if (!entry) return result;
    }
    if (entry.dueAt > Date.now()) return putOff(job, token, entry.dueAt);
    try {
      result.writes += await ports.write(entry, (done) => ports.lanes.saveProgress(entry, done));
    } catch (error) {
      if (error instanceof WritesDeferred) return putOff(job, token, Date.now() + error.retryInMs);
      const message = error instanceof Error ? error.message : String(error);
      ports.log.warn({ queue: "feedback", lane: data.lane, entry: entry.id, attempt: job.attemptsMade + 1, err: error }, "feedback write failed");
      if (!unmendable(error) && job.attemptsMade + 1 < (job.opts.attempts ?? 1)) throw error;
      await job.updateData({ ...data, failed: { id: entry.id, ops: entry.ops, error: message } });
      await ports.lanes.finish(entry);
      await job.removeDeduplicationKey();
      await ports.queue.request(data.lane, data);
      throw new UnrecoverableError(`gave up on ${entry.id}: ${message}`);
    }
    await ports.lanes.finish(entry);
    result.entries++;
    // A busy issue takes its turn like the others: its job goes to the back of the queue.
    if (result.entries % TURN_ENTRIES === 0) return putOff(job, token, Date.now());
  }
}

/**
 * The feedback queue's worker: one job at a time, across every replica too (the queue's global
 * concurrency is 1, set as it starts). One writer keeps status-comment edits ordered and
 * within GitHub's write pacing: two could land an older render last, leaving GitHub's record of
 * the gates, which a rebuild after Redis loss reads, behind. A dead worker's job is taken up by
 * BullMQ's stalled-job check. `connection` retries forever (a worker connection).
 */
export function startFeedbackWorker(ports: FeedbackWorkerPorts, connection: Redis, prefix: string, timing: JobTiming = JOB_TIMING): FeedbackWorker {
  const { log } = ports;
  const worker = new Worker<FeedbackJob, FeedbackResult>(
    QUEUES.feedback,
    (job, token) => writeLane(ports, job, token),
    { connection, prefix, concurrency: 1, ...lockOptions(timing) },
    ClosableConnection,
  );
  worker.on("failed", (job, error) =>
    log.warn({ queue: "feedback", job: job?.id, lane: job?.data.lane, attempt: job?.attemptsMade, err: error }, "feedback job failed"),
  );
  ports.queue
    .prepareWriters()
    .catch((error: unknown) => log.warn({ queue: "feedback", err: error }, "could not set the feedback queue's one writer, or ask for its lanes' jobs"));
  worker.on("stalled", (id) => log.warn({ queue: "feedback", job: id }, "a stalled feedback job (its worker died) runs again"));
  worker.on("error", (error) => log.warn({ queue: "feedback", err: error }, "feedback worker error"));
  return {
    pause: () => worker.pause(),
    resume: () => worker.resume(),
    async close(deadlineMs: number) {
      await withDeadline(worker.close(), deadlineMs, () => new Error("the feedback worker did not finish in time")).catch(() => undefined);
    },
  };
}
