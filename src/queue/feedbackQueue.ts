import { Queue, type Job, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import { ClosableConnection } from "./closableConnection.js";
import { KEEP_FAILED, KEEP_RECENT } from "./jobRetention.js";
import { QUEUES, type CountedState } from "../queueNames.js";
import type { FeedbackOp } from "../payloads.js";
import { FeedbackLanes, type IssueTarget, type LaneKind } from "../status/feedbackLanes.js";

/** A feedback job: bring one lane of an issue up to date. No text: that stays in the lane's entries. */
export const FeedbackJobSchema = z.object({
  lane: z.string().min(1).max(400),
  installationId: z.number().int().positive(),
  repo: z.string().min(1).max(200),
  issue: z.number().int().positive(),
  /** Set when the job failed for good: the entry it gave up on (src/queue/feedbackWorker.ts). */
  failed: z.object({ id: z.string(), ops: z.string().optional(), error: z.string() }).optional(),
});
export type FeedbackJob = z.infer<typeof FeedbackJobSchema>;

/** What a feedback job did: the entries it wrote and the GitHub writes they took. */
export interface FeedbackResult {
  lane: string;
  entries: number;
  writes: number;
}

/** A failing write's first retry; doubled at each retry after (2 s, 4 s …). */
const FEEDBACK_BACKOFF_MS = 2000;

/**
 * A lane's job options. Its deduplication id, the lane, makes one job per lane while one waits, is
 * put off or retries: what is queued meanwhile joins it. Failing writes are tried 8 times, 2 s,
 * 4 s … apart (about four minutes); a write the budget puts off waits without using a try. Done, a
 * job is kept an hour (at most 1,000); failed, with the entry it gave up on, a week.
 */
export function feedbackJobOptions(lane: string, delayMs: number, backoffMs = FEEDBACK_BACKOFF_MS): JobsOptions {
  return {
    deduplication: { id: lane },
    delay: Math.max(0, delayMs),
    attempts: 8,
    backoff: { type: "exponential", delay: backoffMs },
    removeOnComplete: KEEP_RECENT,
    removeOnFail: KEEP_FAILED,
  };
}

/**
 * The feedback queue: a BullMQ queue named `feedback` with a job per issue lane that owes GitHub
 * writes, and the lanes (src/status/feedbackLanes.ts) holding what they owe. Queueing feedback adds
 * the writes to the lane, then asks for the lane's job.
 */
export class FeedbackQueue {
  readonly name = QUEUES.feedback;
  readonly queue: Queue<FeedbackJob, FeedbackResult>;
  readonly lanes: FeedbackLanes;

  constructor(connection: Redis, prefix: string, backoffMs = FEEDBACK_BACKOFF_MS) {
    this.queue = new Queue<FeedbackJob, FeedbackResult>(QUEUES.feedback, { connection, prefix }, ClosableConnection);
    this.lanes = new FeedbackLanes(connection, prefix);
    this.#backoffMs = backoffMs;
  }
  readonly #backoffMs: number;

  /**
   * Queues writes for the issue, at the end of its lane (after `delayMs`, if given: its lane waits
   * with it); false when the same `key` was queued within 24 h. `fresh`: the key was made afresh
   * for this call (a new status line's), so there is nothing to refuse and no 24 h key is kept.
   */
  async add(
    target: IssueTarget,
    ops: readonly FeedbackOp[],
    key: string,
    options: { delayMs?: number; lane?: LaneKind; fresh?: boolean } = {},
  ): Promise<boolean> {
    if (ops.length === 0) return false;
    const lane = this.lanes.laneOf(target, options.lane);
    const headDueAt = await this.lanes.add(target, lane, ops, key, options);
    if (headDueAt === undefined) return false;
    await this.request(lane, target, headDueAt - Date.now());
    return true;
  }

  /** Asks for the lane's job, due in `delayMs`: a no-op while the lane has one. */
  async request(lane: string, target: IssueTarget, delayMs = 0): Promise<void> {
    const { installationId, repo, issue } = target;
    await this.queue.add("writes", { lane, installationId, repo, issue }, feedbackJobOptions(lane, delayMs, this.#backoffMs));
  }

  /**
   * One job at a time across every worker (BullMQ's global concurrency), and a job for every lane
   * with entries: one whose job was lost (a crash between queueing writes and asking) is written too.
   */
  async prepareWriters(): Promise<void> {
    await this.queue.setGlobalConcurrency(1);
    for (const lane of await this.lanes.owing()) {
      const head = await this.lanes.head(lane);
      if (head) await this.request(lane, head, head.dueAt - Date.now());
    }
  }

  /**
   * Deletes the issue's feedback `key` (queued, or in a job that failed on it), which holds
   * withdrawn text: 1 when there was one.
   */
  async remove(target: IssueTarget | { repo: string; issue: number }, key: string): Promise<number> {
    const queued = await this.lanes.remove(target, key);
    if ((await this.queue.getFailedCount()) === 0) return queued;
    const id = this.lanes.entryId(target, key);
    const failed = (await this.queue.getFailed()).filter((job): job is Job<FeedbackJob> => job?.data.failed?.id === id && job.data.failed.ops !== undefined);
    for (const job of failed) await job.updateData({ ...job.data, failed: { id, error: job.data.failed!.error } });
    return queued + failed.length;
  }

  /** Entries still to write: 0 when the app owes GitHub nothing. */
  unfinished(): Promise<number> {
    return this.lanes.unfinished();
  }

  /** The queue's job counts, as every queue's: what the health check and the metrics read. */
  getJobCounts(...states: CountedState[]): Promise<Record<string, number>> {
    return this.queue.getJobCounts(...states);
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
