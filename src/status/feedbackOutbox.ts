import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";
import { withScripts, type ScriptArgs } from "../store/scriptedRedis.js";
import type { CountedState } from "../jobs/names.js";
import { safe } from "../jobs/names.js";
import { waitOnWake } from "../jobs/workerParts.js";
import type { FeedbackOp } from "../jobs/payloads.js";
import {
  ADD_ENTRY,
  COUNT_ENTRIES,
  FAIL_ENTRY,
  FINISH_ENTRY,
  HOLD_LEASE,
  PUT_OFF_ENTRY,
  RELEASE_LEASE,
  REMOVE_ENTRY,
  SAVE_PROGRESS,
  TAKE_ENTRY,
} from "./outboxScripts.js";

/** The same feedback queued again within this long (a retried step queueing it twice) is refused. */
const DEDUPLICATE_MS = 24 * 3600 * 1000;
/** Failed entries are kept a week, for an operator to read. */
const FAILED_KEPT_MS = 7 * 24 * 3600 * 1000;

/** The issue a piece of feedback writes to, on the installation whose token writes it. */
export interface IssueTarget {
  installationId: number;
  repo: string;
  issue: number;
}

/**
 * An issue's writes go in one lane, in the order they were queued: a status comment edit after the
 * label that preceded it. Renders of the status comment go in a lane of their own: debounced, they
 * must not hold the issue's other writes back.
 */
export type LaneKind = "ordered" | "render";

/** An entry as the writer takes it: its fields as recorded (checked by whoever reads them), how far it got, how often it failed. */
export interface OutboxEntry {
  id: string;
  lane: string;
  installationId: number;
  repo: string;
  issue: number;
  /** The ops as recorded (JSON): parsed where they are performed. */
  ops: string;
  /** Ops already done: a retry goes on from there. */
  progress: number;
  /** Failed tries so far (a write put off for the budget is no failure). */
  attempts: number;
}

/** What the writer got from the outbox: an entry to write, nothing due (the next due time, if any), or the lease lost. */
export type Taken = { kind: "entry"; entry: OutboxEntry } | { kind: "idle"; nextDueAt: number | undefined } | { kind: "lease" };

interface OutboxCommands {
  escAddEntry(...args: ScriptArgs): Promise<number>;
  escTakeEntry(...args: ScriptArgs): Promise<string[]>;
  escSaveProgress(...args: ScriptArgs): Promise<number>;
  escFinishEntry(...args: ScriptArgs): Promise<string>;
  escPutOffEntry(...args: ScriptArgs): Promise<number>;
  escFailEntry(...args: ScriptArgs): Promise<number>;
  escRemoveEntry(...args: ScriptArgs): Promise<number>;
  escHoldLease(...args: ScriptArgs): Promise<number>;
  escReleaseLease(...args: ScriptArgs): Promise<number>;
  escCountEntries(...args: ScriptArgs): Promise<[number, number, number, number]>;
}

/**
 * The GitHub writes the app owes its issues (reactions, labels, comments, the status comment): an
 * outbox in Redis, a few commands per entry where a BullMQ job took about sixty
 * (tools/bench/README.md). One writer at a time (a lease) drains it, each issue's lane in order.
 * The one place that knows its key layout: the lanes index (lane → its head's due time), each lane
 * (entry ids in order), each entry (a hash, deleted once written), each entry id's key (24 h: the
 * same feedback queued twice is written once; `failed:<id>` once it failed), the failed stream (a
 * week), the wake set and the writer's lease. What is still to write is counted from the lanes.
 */
export class FeedbackOutbox {
  /** The name the health check and the metrics give it, as they name the queues. */
  readonly name = "feedback";
  readonly #redis: Redis & OutboxCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<OutboxCommands>(redis, {
      escAddEntry: { numberOfKeys: 5, lua: ADD_ENTRY },
      escTakeEntry: { numberOfKeys: 2, lua: TAKE_ENTRY },
      escSaveProgress: { numberOfKeys: 1, lua: SAVE_PROGRESS },
      escFinishEntry: { numberOfKeys: 3, lua: FINISH_ENTRY },
      escPutOffEntry: { numberOfKeys: 2, lua: PUT_OFF_ENTRY },
      escFailEntry: { numberOfKeys: 5, lua: FAIL_ENTRY },
      escRemoveEntry: { numberOfKeys: 4, lua: REMOVE_ENTRY },
      escHoldLease: { numberOfKeys: 1, lua: HOLD_LEASE },
      escReleaseLease: { numberOfKeys: 1, lua: RELEASE_LEASE },
      escCountEntries: { numberOfKeys: 2, lua: COUNT_ENTRIES },
    });
  }

  /** Sorted set: each lane with entries, scored by the time its head is due (ms). */
  lanesKey(): string {
    return keyIn(this.prefix, "outbox:lanes");
  }
  /** List: a lane's entry ids, in the order they write. */
  laneKey(lane: string): string {
    return `${this.lanePrefix()}${lane}`;
  }
  /** Hash: an entry's target, ops, due time, progress and failed tries. */
  entryKey(id: string): string {
    return `${this.entryPrefix()}${id}`;
  }
  /** String with TTL: the entry id was queued (`failed:<stream id>` once it failed). */
  idKey(id: string): string {
    return keyIn(this.prefix, `outbox:id:${id}`);
  }
  /** Stream: the entries that kept failing, with their fields and last error. */
  failedKey(): string {
    return keyIn(this.prefix, "outbox:failed");
  }
  /** Sorted set of one member: the earliest due time (ms) queued since the writer last looked (it waits on it; src/jobs/workerParts.ts). */
  wakeKey(): string {
    return keyIn(this.prefix, "outbox:wakeAt");
  }
  /** String with TTL: the writer holding the lease. */
  writerKey(): string {
    return keyIn(this.prefix, "outbox:writer");
  }
  private lanePrefix(): string {
    return keyIn(this.prefix, "outbox:lane:");
  }
  private entryPrefix(): string {
    return keyIn(this.prefix, "outbox:entry:");
  }

  /** The id of the feedback `key` for an issue: queueing it again is refused for 24 h. */
  entryId(target: { repo: string; issue: number }, key: string): string {
    return `${safe(target.repo)}#${target.issue}-${safe(key)}`;
  }

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
    const id = this.entryId(target, key);
    const lane = `${safe(target.repo)}#${target.issue}${options.lane === "render" ? "/render" : ""}`;
    const dueAt = Date.now() + (options.delayMs ?? 0);
    const fields = ["installationId", target.installationId, "repo", target.repo, "issue", target.issue, "ops", JSON.stringify(ops)];
    const keys = [this.idKey(id), this.entryKey(id), this.laneKey(lane), this.lanesKey(), this.wakeKey()];
    return (await this.#redis.escAddEntry(...keys, options.fresh ? 0 : DEDUPLICATE_MS, lane, dueAt, id, ...fields)) === 1;
  }

  /** Takes the lease for `writer`, or keeps it: true while `writer` holds it. */
  async hold(writer: string, leaseMs: number): Promise<boolean> {
    return (await this.#redis.escHoldLease(this.writerKey(), writer, leaseMs)) === 1;
  }

  /** Gives the lease up, if `writer` holds it. */
  async release(writer: string): Promise<void> {
    await this.#redis.escReleaseLease(this.writerKey(), writer);
  }

  /** The head of the lane due first, if `writer` still holds the lease. */
  async take(writer: string, now = Date.now()): Promise<Taken> {
    const reply = await this.#redis.escTakeEntry(this.writerKey(), this.lanesKey(), writer, now, this.entryPrefix(), this.lanePrefix());
    if (reply[0] === "lease") return { kind: "lease" };
    if (reply[0] === "idle") return { kind: "idle", nextDueAt: reply[1] ? Number(reply[1]) : undefined };
    const fields: Record<string, string> = {};
    for (let i = 2; i + 1 < reply.length; i += 2) fields[reply[i]!] = reply[i + 1]!;
    return {
      kind: "entry",
      entry: {
        id: reply[1]!,
        lane: fields.lane ?? "",
        installationId: Number(fields.installationId),
        repo: fields.repo ?? "",
        issue: Number(fields.issue),
        ops: fields.ops ?? "",
        progress: Number(fields.progress ?? 0),
        attempts: Number(fields.attempts ?? 0),
      },
    };
  }

  /** Waits up to `ms` on `blocking` (a connection of its own) for something to be queued: when the earliest of it is due (ms), or undefined at the timeout. */
  async waitForWork(blocking: Redis, ms: number): Promise<number | undefined> {
    return waitOnWake(blocking, this.wakeKey(), ms);
  }

  /** `done` of the entry's ops are written. */
  async saveProgress(entry: OutboxEntry, done: number): Promise<void> {
    await this.#redis.escSaveProgress(this.entryKey(entry.id), done);
  }

  /** The entry is written: its lane's next entry is due. Returns the ms until some lane is due (0: one is now), undefined when the outbox is empty. */
  async finish(entry: OutboxEntry, now = Date.now()): Promise<number | undefined> {
    const dueIn = await this.#redis.escFinishEntry(
      this.entryKey(entry.id),
      this.laneKey(entry.lane),
      this.lanesKey(),
      entry.id,
      entry.lane,
      this.entryPrefix(),
      now,
    );
    return dueIn === "" ? undefined : Number(dueIn);
  }

  /** The entry (and its lane) waits until `dueAt`; `attempts`: its failed tries so far. */
  async putOff(entry: OutboxEntry, dueAt: number, attempts: number): Promise<void> {
    await this.#redis.escPutOffEntry(this.entryKey(entry.id), this.lanesKey(), entry.lane, dueAt, attempts);
  }

  /** The entry kept failing: moved to the failed stream with the last error. */
  async fail(entry: OutboxEntry, error: string, attempts: number): Promise<void> {
    await this.#redis.escFailEntry(
      this.entryKey(entry.id),
      this.laneKey(entry.lane),
      this.lanesKey(),
      this.failedKey(),
      this.idKey(entry.id),
      entry.id,
      entry.lane,
      this.entryPrefix(),
      Date.now() - FAILED_KEPT_MS,
      "error",
      error,
      "attempts",
      attempts,
      "failedAt",
      Date.now(),
    );
  }

  /** Deletes the issue's feedback `key` (queued or failed), which holds withdrawn text: 1 when there was one. */
  async remove(target: { repo: string; issue: number }, key: string): Promise<number> {
    const id = this.entryId(target, key);
    return this.#redis.escRemoveEntry(this.entryKey(id), this.lanesKey(), this.failedKey(), this.idKey(id), id, this.entryPrefix(), this.lanePrefix());
  }

  /** Entries still to write (due, put off, or being written), and the lanes (issues) they wait in: none when the app owes GitHub nothing. */
  async pending(): Promise<{ entries: number; lanes: number }> {
    const [entries, lanes] = await this.#count();
    return { entries, lanes };
  }

  /** Entries still to write: 0 when the app owes GitHub nothing. */
  async unfinished(): Promise<number> {
    return (await this.pending()).entries;
  }

  /**
   * The counts the health check and the metrics read of every queue: `delayed` counts the lanes
   * put off (a delay, the write budget, a retry's backoff), `waiting` the other entries still to
   * write, the one being written among them.
   */
  async getJobCounts(...states: CountedState[]): Promise<Partial<Record<CountedState, number>>> {
    const [pending, , delayed, failed] = await this.#count();
    const all: Record<CountedState, number> = { waiting: Math.max(0, pending - delayed), active: 0, delayed, failed };
    return Object.fromEntries(states.map((state) => [state, all[state]]));
  }

  #count(): Promise<[number, number, number, number]> {
    return this.#redis.escCountEntries(this.lanesKey(), this.failedKey(), Date.now(), this.lanePrefix());
  }
}
