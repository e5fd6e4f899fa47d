import { DelayedError, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { ZodError } from "zod";
import { withDeadline } from "../deadline.js";
import { ClosableConnection } from "./closableConnection.js";
import { QUEUES } from "../queueNames.js";
import { JOB_TIMING, lockOptions, type JobTiming } from "./jobLocks.js";
import { spawnTask, type SpawnTask } from "./spawnQueue.js";

/** Why a spawn job stopped by shutdown is not completed: it goes back to the queue for the next worker, without using an attempt. */
export class ShutdownInterrupt extends Error {
  override name = "ShutdownInterrupt";
}

/**
 * Raised inside a spawn job whose lock this worker could not renew (Redis lost it, or it ran out
 * while Redis was unreachable): another worker may already re-run the round, so this agent stops.
 */
export class LockLost extends Error {
  override name = "LockLost";
}

/** BullMQ cancels a job with a reason in words; these name ours, turned back into the errors above. */
const SHUTDOWN = "shutdown";
const LOCK_LOST = "lock lost";

export interface SpawnWorkerPorts {
  log: Pick<Logger, "warn" | "error">;
  /** The worker's name (RUNNER_NAME): BullMQ's `getWorkers()` lists it, and each job it takes records it (`processedBy`). */
  name?: string;
  /** Runs the job; `signal` aborts with ShutdownInterrupt or LockLost. What it returns is the job's outcome line. */
  run(task: SpawnTask, signal: AbortSignal): Promise<string>;
}

export interface SpawnWorker {
  /** Stops taking jobs, gives running agents `graceMs`, then stops them (their jobs go back to the queue), and waits for them up to `deadlineMs`. */
  close(graceMs: number, deadlineMs: number): Promise<void>;
}

/** `signal` with BullMQ's reasons in words turned into ours. */
function typedStop(signal: AbortSignal | undefined): AbortSignal {
  const controller = new AbortController();
  const forward = () =>
    controller.abort(
      signal?.reason === SHUTDOWN
        ? new ShutdownInterrupt("the app shut down while the agent ran; the round will be retried")
        : new LockLost("lost the job's lock"),
    );
  if (signal?.aborted) forward();
  else signal?.addEventListener("abort", forward, { once: true });
  return controller.signal;
}

/**
 * Runs spawn jobs on a BullMQ worker, `concurrency` at once. A job ends as its round ended:
 * completed with its outcome; put back (delayed a second) without using an attempt when the app
 * shut down under it; left to its new holder when its lock was lost (its agent stopped first);
 * otherwise failed, and retried by BullMQ with backoff until its attempts are used. A dead
 * worker's job is taken up by another through BullMQ's stalled-job check, as a new start.
 * `connection` retries forever (a worker connection).
 */
export function startSpawnWorker(ports: SpawnWorkerPorts, connection: Redis, prefix: string, concurrency: number, timing: JobTiming = JOB_TIMING): SpawnWorker {
  const { log } = ports;
  const worker = new Worker<unknown, string>(
    QUEUES.spawn,
    async (job: Job, token?: string, signal?: AbortSignal) => {
      const stop = typedStop(signal);
      let outcome: string;
      try {
        outcome = await ports.run(spawnTask(job), stop);
      } catch (error) {
        // What was queued does not parse: no retry mends it.
        if (!stop.aborted && error instanceof ZodError) throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
        if (!stop.aborted) throw error;
        outcome = "";
      }
      if (stop.reason instanceof ShutdownInterrupt) {
        // Back to the queue without using an attempt: deploys must not exhaust a round's retries.
        await job.moveToDelayed(Date.now() + 1000, token);
        throw new DelayedError();
      }
      // The job is another worker's now: BullMQ refuses to end it under this worker's lost lock.
      if (stop.reason instanceof LockLost) throw stop.reason;
      return outcome;
    },
    { connection, prefix, concurrency, ...(ports.name ? { name: ports.name } : {}), ...lockOptions(timing) },
    ClosableConnection,
  );
  worker.on("lockRenewalFailed", (ids) => {
    for (const id of ids) {
      if (worker.cancelJob(id, LOCK_LOST))
        log.warn({ queue: "spawn", job: id }, "lost the lock of a running spawn job; stopping its agent so the round is not run twice");
    }
  });
  worker.on("stalled", (id) => log.warn({ queue: "spawn", job: id }, "a stalled spawn job (its worker died) runs again"));
  worker.on("failed", (job, error) => log.warn({ queue: "spawn", job: job?.id, attempt: job?.attemptsMade, err: error }, "job failed"));
  worker.on("error", (error) => log.warn({ queue: "spawn", err: error }, "spawn worker error"));
  return {
    async close(graceMs: number, deadlineMs: number) {
      const closing = worker.close();
      const timer = setTimeout(() => worker.cancelAllJobs(SHUTDOWN), graceMs);
      await withDeadline(closing, deadlineMs, () => new Error("the spawn worker's jobs did not end in time")).catch(() => undefined);
      clearTimeout(timer);
    },
  };
}
