import type { Redis } from "ioredis";
import { issueKey, type IssueKeyRef } from "./issueKey.js";
import { withScripts, type ScriptArgs } from "./scriptedRedis.js";

/** KEYS: issue. ARGV: now (ms). The next status render's place: above every earlier one, and not below the time, so it keeps rising after a wipe. */
const NEXT_STATUS_SEQ = `
local seq = tonumber(redis.call('HGET', KEYS[1], 'statusSeq') or '0') + 1
if tonumber(ARGV[1]) > seq then seq = tonumber(ARGV[1]) end
redis.call('HSET', KEYS[1], 'statusSeq', string.format('%d', seq))
return seq
`;

interface StatusCommands {
  escNextStatusSeq(...args: ScriptArgs): Promise<number>;
}

/**
 * The issue's status comment: its log of lines, how many GitHub shows, the pending render, its
 * comment id and render sequence (those two in the issue's hash).
 */
export class StatusLog {
  readonly #redis: Redis & StatusCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<StatusCommands>(redis, { escNextStatusSeq: { numberOfKeys: 1, lua: NEXT_STATUS_SEQ } });
  }

  /** List: the lines of the issue's status comment, oldest first. */
  logKey(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:status`;
  }
  /** String with TTL: a status render of the issue is scheduled; lines added meanwhile ride along with it. */
  pendingKey(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:statusPending`;
  }

  /** The next status render's place among the issue's renders (src/status/statusComment.ts `seq`). */
  async nextStatusSeq(ref: IssueKeyRef, now: number): Promise<number> {
    return Number(await this.#redis.escNextStatusSeq(issueKey(this.prefix, ref), now));
  }

  async setStatusCommentId(ref: IssueKeyRef, commentId: number): Promise<void> {
    await this.#redis.hset(issueKey(this.prefix, ref), "statusCommentId", commentId);
  }

  /** Restores the status comment's id from the comment itself, where Redis lost it (one it still has stays). */
  async restoreStatusCommentId(ref: IssueKeyRef, commentId: number): Promise<void> {
    await this.#redis.hsetnx(issueKey(this.prefix, ref), "statusCommentId", commentId);
  }

  /** Appends a line to the status comment's log; returns its sequence number (1-based). */
  async appendStatusLine(ref: IssueKeyRef, line: string): Promise<number> {
    return this.#redis.rpush(this.logKey(ref), line);
  }

  async statusLines(ref: IssueKeyRef): Promise<string[]> {
    return this.#redis.lrange(this.logKey(ref), 0, -1);
  }

  /** How many status lines the status comment on GitHub shows; newer jobs skip when it is ahead. */
  async statusRendered(ref: IssueKeyRef): Promise<number> {
    return Number((await this.#redis.hget(issueKey(this.prefix, ref), "statusRendered")) ?? 0);
  }

  async setStatusRendered(ref: IssueKeyRef, count: number): Promise<void> {
    await this.#redis.hset(issueKey(this.prefix, ref), "statusRendered", count);
  }

  /**
   * Marks a status render of the issue as scheduled for `ttlMs`; true when none was, so the caller
   * schedules it. Lines appended while it is pending ride along with that render.
   */
  async markStatusPending(ref: IssueKeyRef, ttlMs: number): Promise<boolean> {
    return (await this.#redis.set(this.pendingKey(ref), "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX")) === "OK";
  }

  /** A status render starts reading the log: lines appended from now on schedule the next one. */
  async clearStatusPending(ref: IssueKeyRef): Promise<void> {
    await this.#redis.del(this.pendingKey(ref));
  }
}
