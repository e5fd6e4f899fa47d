import { Queue, type Job, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { ClosableConnection } from "./closableConnection.js";
import { KEEP_DEDUPLICATING, KEEP_FAILED } from "./jobRetention.js";
import { QUEUES } from "../queueNames.js";
import type { SpawnJob } from "../payloads.js";

/** The spawn rounds' queue: a BullMQ queue named `spawn`, its job data a SpawnJob (no secret: job data is clear text in Redis). */
export type SpawnQueue = Queue<SpawnJob, string>;

/** A failed round's first retry; doubled at each retry after (2 s, 4 s …). */
export const SPAWN_BACKOFF_MS = 2_000;

/** The spawn rounds' queue on `connection` under `prefix`. */
export function openSpawnQueue(connection: Redis, prefix: string): SpawnQueue {
  return new Queue<SpawnJob, string>(QUEUES.spawn, { connection, prefix }, ClosableConnection);
}

/**
 * A round's job options. Its id (src/queueNames.ts) refuses the same answer or dispatch queued again
 * while the job is kept: a day once completed (its outcome readable meanwhile), a week once failed.
 * `attempts` bounds the agent's retries before the attempts_exhausted gate.
 */
export function spawnJobOptions(jobId: string, attempts: number, backoffMs = SPAWN_BACKOFF_MS): JobsOptions {
  return {
    jobId,
    attempts,
    backoff: { type: "exponential", delay: backoffMs },
    removeOnComplete: KEEP_DEDUPLICATING,
    removeOnFail: KEEP_FAILED,
  };
}

/** A spawn job as its round reads it. */
export interface SpawnTask {
  id: string;
  /** The job's data as queued: parsed where it is run. */
  data: unknown;
  /** The most times it may fail before it fails for good. */
  attempts: number;
  /** Times it failed so far (a round put back at a shutdown is no failure). */
  attemptsMade: number;
  /** Times a worker took it, this one included: above 1, an earlier run may have got some way. */
  attemptsStarted: number;
  /** When it was queued (ms, the queuer's clock). */
  createdAt: number;
}

/** What a round reads of the BullMQ job it runs in. */
export function spawnTask(job: Job): SpawnTask {
  return {
    id: job.id ?? "",
    data: job.data,
    attempts: job.opts.attempts ?? 1,
    attemptsMade: job.attemptsMade,
    attemptsStarted: job.attemptsStarted,
    createdAt: job.timestamp,
  };
}

/** Where a job id stands: queued (waiting, running or due later), ended with an outcome (a line) or failed, or not known. */
export type SpawnState = { kind: "queued" } | { kind: "ended"; outcome: string } | { kind: "failed" } | { kind: "unknown" };

/** Where spawn job `id` stands. */
export async function spawnState(queue: SpawnQueue, id: string): Promise<SpawnState> {
  const state = await queue.getJobState(id);
  if (state === "completed") {
    const job = await queue.getJob(id);
    return job ? { kind: "ended", outcome: String(job.returnvalue) } : { kind: "unknown" };
  }
  if (state === "failed") return { kind: "failed" };
  if (state === "unknown") return { kind: "unknown" };
  return { kind: "queued" };
}

/** The names (RUNNER_NAME) of the spawn queue's workers connected now, from BullMQ's client names (`<queue>:w:<name>`). */
export async function connectedRunners(queue: Pick<SpawnQueue, "getWorkers">): Promise<string[]> {
  const names = (await queue.getWorkers()).map((worker) => /:w:(.+)$/.exec(worker.rawname ?? "")?.[1]).filter((name) => name !== undefined);
  return [...new Set(names)].sort();
}

/** Rounds running now, by the runner that took each (BullMQ's `processedBy`: the worker's name). */
export async function roundsByRunner(queue: Pick<SpawnQueue, "getActive">): Promise<Map<string, number>> {
  const running = new Map<string, number>();
  for (const job of await queue.getActive()) {
    const runner = job.processedBy ?? "unknown";
    running.set(runner, (running.get(runner) ?? 0) + 1);
  }
  return running;
}
