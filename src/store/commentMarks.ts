import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";
import { issueKey, type IssueKeyRef } from "./issueKey.js";

/** How long a reply handled before its question is kept for it: the question's webhook comes within seconds. */
const EARLY_REPLY_MS = 10 * 60_000;

/** Short-lived marks about comments: deleted ones, the app's echoes of a reply, replies the app sends once, replies that came before their question. */
export class CommentMarks {
  readonly #redis: Redis;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = redis;
  }

  /**
   * String with TTL: the comment was deleted. A webhook of its creation processed after the deletion
   * (GitHub does not promise order) then records nothing from it.
   */
  deletedKey(repo: string, commentId: number): string {
    return keyIn(this.prefix, `deleted:${repo.toLowerCase()}:${commentId}`);
  }
  /** Set with TTL: the app's comments that quote the words of reply `commentId` (its echo), to redact them if it is withdrawn or edited. */
  echoesKey(ref: IssueKeyRef, commentId: number): string {
    return `${issueKey(this.prefix, ref)}:echoes:${commentId}`;
  }
  /** Sorted set with TTL: the deliveries of human replies handled while the issue had no open question, scored by when each was written. */
  earlyRepliesKey(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:early`;
  }
  /** String with TTL: marks a one-time reply (help text, config warning) as already sent. */
  onceKey(what: string): string {
    return keyIn(this.prefix, `once:${what}`);
  }

  /** The app posted comment `echoId` quoting reply `of` (kept 90 days, like a ladder's steps). */
  async rememberEcho(ref: IssueKeyRef, of: number, echoId: number): Promise<void> {
    const key = this.echoesKey(ref, of);
    // One round trip; MULTI/EXEC would add two commands to guard only against Redis failing between the two.
    await this.#redis
      .pipeline()
      .sadd(key, echoId)
      .expire(key, 90 * 86400)
      .exec();
  }

  /** The app's comments quoting reply `of`. */
  async echoes(ref: IssueKeyRef, of: number): Promise<number[]> {
    return (await this.#redis.smembers(this.echoesKey(ref, of))).map(Number);
  }

  /** Reply `of`'s echoes were redacted. */
  async forgetEchoes(ref: IssueKeyRef, of: number): Promise<void> {
    await this.#redis.del(this.echoesKey(ref, of));
  }

  /** Remembers for a day that the comment was deleted (see deletedKey). */
  async markCommentDeleted(repo: string, commentId: number): Promise<void> {
    await this.#redis.set(this.deletedKey(repo, commentId), "1", "EX", 86400);
  }

  async commentWasDeleted(repo: string, commentId: number): Promise<boolean> {
    return (await this.#redis.exists(this.deletedKey(repo, commentId))) === 1;
  }

  /**
   * A human reply was handled while no question was open (delivery `deliveryId`, written at
   * `writtenAt`): kept ten minutes, for a question whose webhook is handled after it.
   */
  async noteEarlyReply(ref: IssueKeyRef, deliveryId: string, writtenAt: number): Promise<void> {
    const key = this.earlyRepliesKey(ref);
    await this.#redis
      .pipeline()
      .zadd(key, writtenAt, deliveryId)
      .zremrangebyscore(key, "-inf", writtenAt - EARLY_REPLY_MS)
      .pexpire(key, EARLY_REPLY_MS)
      .exec();
  }

  /** The deliveries of the early replies written at `since` or later, oldest first. */
  async earlyReplies(ref: IssueKeyRef, since: number): Promise<string[]> {
    return this.#redis.zrangebyscore(this.earlyRepliesKey(ref), since, "+inf");
  }

  /** True only the first time `what` is marked within `ttlSeconds`: for replies that must be sent once. */
  async firstTime(what: string, ttlSeconds = 30 * 86400): Promise<boolean> {
    return (await this.#redis.set(this.onceKey(what), "1", "EX", ttlSeconds, "NX")) === "OK";
  }
}
