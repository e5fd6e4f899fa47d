import type { Redis } from "ioredis";
import { issueKey, type IssueKeyRef } from "./issueKey.js";
import { withScripts, type ScriptArgs } from "./scriptedRedis.js";

/**
 * KEYS: issue, order. ARGV: jobId. Queues the job in the issue's write order (a job already there keeps its place).
 * The order's counter is a field of the issue's hash (`feedbackSeq`): the script spans both, with the write order that drives it.
 */
const ENQUEUE_FEEDBACK = `
local seq = redis.call('HINCRBY', KEYS[1], 'feedbackSeq', 1)
redis.call('ZADD', KEYS[2], 'NX', seq, ARGV[1])
return seq
`;

/** Whose turn it is to write to an issue, as a feedback job asks it (FeedbackOrder.turnOf). */
export type FeedbackTurn = { kind: "mine" } | { kind: "unordered" } | { kind: "behind"; head: string; dueAt?: number };

interface FeedbackCommands {
  escEnqueueFeedback(...args: ScriptArgs): Promise<number>;
}

/** Each issue's feedback jobs in the order they write to GitHub, and which of them were put off until when. */
export class FeedbackOrder {
  readonly #redis: Redis & FeedbackCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<FeedbackCommands>(redis, { escEnqueueFeedback: { numberOfKeys: 2, lua: ENQUEUE_FEEDBACK } });
  }

  /** Sorted set: the issue's feedback jobs not yet done (score: enqueue order), so they write in that order. */
  orderKey(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:feedback`;
  }
  /** Hash: feedback job id → ms until which that job was put off (its followers wait until after it). */
  dueKey(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:feedbackDue`;
  }

  /** Puts a feedback job in the issue's write order (before it is queued); a job already there keeps its place. */
  async enqueueFeedback(ref: IssueKeyRef, jobId: string): Promise<void> {
    await this.#redis.escEnqueueFeedback(issueKey(this.prefix, ref), this.orderKey(ref), jobId);
  }

  /**
   * Whose turn it is to write to the issue, asked by `jobId`: its own (it heads the order: one
   * command, the usual case), an earlier job's (put off until `dueAt`, if it was), or nobody's
   * order (the job is not in it).
   */
  async turnOf(ref: IssueKeyRef, jobId: string): Promise<FeedbackTurn> {
    const [head] = await this.#redis.zrange(this.orderKey(ref), 0, 0);
    if (head === jobId) return { kind: "mine" };
    if (head === undefined) return { kind: "unordered" };
    const [[scoreError, score], [dueError, due]] = (await this.#redis.pipeline().zscore(this.orderKey(ref), jobId).hget(this.dueKey(ref), head).exec()) as [
      [Error | null, string | null],
      [Error | null, string | null],
    ];
    const failed = scoreError ?? dueError;
    if (failed) throw failed;
    if (score === null) return { kind: "unordered" };
    return { kind: "behind", head, dueAt: due ? Number(due) : undefined };
  }

  /** The feedback job was put off until `dueAt` (ms): the issue's later jobs wait until after it. */
  async feedbackPutOff(ref: IssueKeyRef, jobId: string, dueAt: number): Promise<void> {
    await this.#redis.hset(this.dueKey(ref), jobId, dueAt);
  }

  /** The feedback job is done (or gone): the issue's next job may write. */
  async feedbackDone(ref: IssueKeyRef, jobId: string): Promise<void> {
    // One write, not a transaction: a put-off time left behind by a crash between the two names a job no longer in the order, and nothing reads it.
    await this.#redis.pipeline().zrem(this.orderKey(ref), jobId).hdel(this.dueKey(ref), jobId).exec();
  }
}
