import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";
import { withScripts, type ScriptArgs } from "../store/scriptedRedis.js";
import { safe } from "../queueNames.js";
import type { FeedbackOp } from "../payloads.js";
import { ADD_ENTRY, COUNT_ENTRIES, HEAD_ENTRY, REMOVE_ENTRY, SAVE_PROGRESS } from "./laneScripts.js";

/** The same feedback queued again within this long (a retried step queueing it twice) is refused. */
const DEDUPLICATE_MS = 24 * 3600 * 1000;

/** The issue a piece of feedback writes to, on the installation whose token writes it. */
export interface IssueTarget {
  installationId: number;
  repo: string;
  issue: number;
}

/**
 * An issue's writes go in one lane, in the order they were queued: a comment after the comment
 * queued before it. Renders of the status comment go in a lane of their own: debounced, they must
 * not hold the issue's other writes back.
 */
export type LaneKind = "ordered" | "render";

/** An entry as the feedback job reads it: its fields as recorded (checked by whoever reads them) and how far it got. */
export interface LaneEntry {
  id: string;
  lane: string;
  installationId: number;
  repo: string;
  issue: number;
  /** The ops as recorded (JSON): parsed where they are performed. */
  ops: string;
  /** Ops already done: a retry goes on from there. */
  progress: number;
  /** When it may be written (ms): its lane waits until then. */
  dueAt: number;
}

interface LaneCommands {
  escAddEntry(...args: ScriptArgs): Promise<string | null>;
  escHeadEntry(...args: ScriptArgs): Promise<string[]>;
  escSaveProgress(...args: ScriptArgs): Promise<number>;
  escRemoveEntry(...args: ScriptArgs): Promise<number>;
  escCountEntries(...args: ScriptArgs): Promise<number>;
}

/**
 * The GitHub writes each issue is still owed (reactions, labels, comments, the status comment), in
 * the order they were queued: the state a feedback job (src/queue/feedbackWorker.ts) brings
 * GitHub to, not a queue (BullMQ schedules, retries and takes over the jobs). The one place that
 * knows its key layout: each lane (entry ids in order), each entry (a hash, deleted once written),
 * each entry id's key (24 h: the same feedback queued twice is written once), and the owing set
 * (the lanes with entries).
 */
export class FeedbackLanes {
  readonly #redis: Redis & LaneCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<LaneCommands>(redis, {
      escAddEntry: { numberOfKeys: 4, lua: ADD_ENTRY },
      escHeadEntry: { numberOfKeys: 2, lua: HEAD_ENTRY },
      escSaveProgress: { numberOfKeys: 1, lua: SAVE_PROGRESS },
      escRemoveEntry: { numberOfKeys: 2, lua: REMOVE_ENTRY },
      escCountEntries: { numberOfKeys: 1, lua: COUNT_ENTRIES },
    });
  }

  /** Set: the lanes with entries. */
  owingKey(): string {
    return keyIn(this.prefix, "owed:lanes");
  }
  /** List: a lane's entry ids, in the order they write. */
  laneKey(lane: string): string {
    return `${this.lanePrefix()}${lane}`;
  }
  /** Hash: an entry's target, ops, due time and progress. */
  entryKey(id: string): string {
    return `${this.entryPrefix()}${id}`;
  }
  /** String with TTL: the entry id was queued. */
  idKey(id: string): string {
    return keyIn(this.prefix, `owed:key:${id}`);
  }
  private lanePrefix(): string {
    return keyIn(this.prefix, "owed:lane:");
  }
  private entryPrefix(): string {
    return keyIn(this.prefix, "owed:entry:");
  }

  /** The lane an issue's writes of `kind` go in; a feedback job's deduplication id. */
  laneOf(target: { repo: string; issue: number }, kind: LaneKind = "ordered"): string {
    return `${safe(target.repo)}#${target.issue}${kind === "render" ? "/render" : ""}`;
  }

  /** The id of the feedback `key` for an issue: queueing it again is refused for 24 h. */
  entryId(target: { repo: string; issue: number }, key: string): string {
    return `${safe(target.repo)}#${target.issue}-${safe(key)}`;
  }

  /**
   * Queues writes at the end of the issue's lane `lane`, due after `delayMs` (the lane waits with
   * them). Returns when the lane's head is due (ms), or undefined when the same `key` was queued
   * within 24 h. `fresh`: the key was made afresh for this call, so there is nothing to refuse.
   */
  async add(
    target: IssueTarget,
    lane: string,
    ops: readonly FeedbackOp[],
    key: string,
    options: { delayMs?: number; fresh?: boolean } = {},
  ): Promise<number | undefined> {
    const id = this.entryId(target, key);
    const dueAt = Date.now() + (options.delayMs ?? 0);
    const fields = ["installationId", target.installationId, "repo", target.repo, "issue", target.issue, "ops", JSON.stringify(ops)];
    const keys = [this.idKey(id), this.entryKey(id), this.laneKey(lane), this.owingKey()];
    const headDueAt = await this.#redis.escAddEntry(...keys, options.fresh ? 0 : DEDUPLICATE_MS, lane, dueAt, id, this.entryPrefix(), ...fields);
    return headDueAt === null ? undefined : Number(headDueAt);
  }

  /** The lane's first entry still to write, if any. */
  async head(lane: string): Promise<LaneEntry | undefined> {
    const reply = await this.#redis.escHeadEntry(this.laneKey(lane), this.owingKey(), lane, this.entryPrefix());
    if (reply.length === 0) return undefined;
    const fields: Record<string, string> = {};
    for (let i = 1; i + 1 < reply.length; i += 2) fields[reply[i]!] = reply[i + 1]!;
    return {
      id: reply[0]!,
      lane: fields.lane ?? lane,
      installationId: Number(fields.installationId),
      repo: fields.repo ?? "",
      issue: Number(fields.issue),
      ops: fields.ops ?? "",
      progress: Number(fields.progress ?? 0),
      dueAt: Number(fields.dueAt ?? 0),
    };
  }

  /** `done` of the entry's ops are written. */
  async saveProgress(entry: LaneEntry, done: number): Promise<void> {
    await this.#redis.escSaveProgress(this.entryKey(entry.id), done);
  }

  /** The entry leaves its lane: written, or failed for good. */
  async finish(entry: LaneEntry): Promise<void> {
    await this.#redis.escRemoveEntry(this.entryKey(entry.id), this.owingKey(), entry.id, this.lanePrefix());
  }

  /** Deletes the issue's queued feedback `key`, which holds withdrawn text: 1 when there was one. */
  async remove(target: { repo: string; issue: number }, key: string): Promise<number> {
    const id = this.entryId(target, key);
    return this.#redis.escRemoveEntry(this.entryKey(id), this.owingKey(), id, this.lanePrefix());
  }

  /** The lanes with entries. */
  async owing(): Promise<string[]> {
    return this.#redis.smembers(this.owingKey());
  }

  /** Entries still to write (due, put off, or being written): 0 when the app owes GitHub nothing. */
  async unfinished(): Promise<number> {
    return this.#redis.escCountEntries(this.owingKey(), this.lanePrefix());
  }
}
