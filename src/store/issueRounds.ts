import type { Redis } from "ioredis";
import type { Gate, HumanNote, IssueRecord, RoundTiming } from "../domain.js";
import { toGate, pairs } from "./gateHash.js";
import { GateKeys } from "./gateKeys.js";
import { issueKey, type IssueKeyRef } from "./issueKey.js";
import { toIssue } from "./issueRecords.js";
import { notesKey } from "./issueNotes.js";
import { epochKey } from "./namespaceMarks.js";
import { ALLOCATE_ROUND, BEGIN_ROUND, MARK_ROUND_DONE, RAISE_NEXT_ROUND, ROUND_CONTEXT } from "./roundScripts.js";
import { withScripts, type ScriptArgs } from "./scriptedRedis.js";

/** What a spawn job found and did in Redis before starting its agent (IssueRounds.beginRound). */
export interface RoundStart {
  /**
   * "claimed" (also when there was no gate to claim); "done" when the job's round already ran to its
   * end (markRoundDone); else the gate's state ("missing" when Redis has none).
   */
  claim: string;
  /** The issue is closed: no round was allocated. */
  closed: boolean;
  /** The job's round; undefined when none was asked for, the issue is closed or the limit was reached (`exhausted`). */
  round?: number;
  exhausted: boolean;
  /** The issue's round after the allocation (the last one allocated, 0 before any). */
  currentRound: number;
  /** The namespace's epoch (see epochKey); undefined when Redis has none. */
  epoch?: number;
}

/** Everything a spawn task is rendered from, read at once. */
export interface RoundRecords {
  issue?: IssueRecord;
  /** Every gate of the issue in ask order. */
  gates: Gate[];
  notes: HumanNote[];
  /** The issue's round now (see currentRound). */
  currentRound: number;
}

interface RoundCommands {
  escAllocateRound(...args: ScriptArgs): Promise<number>;
  escBeginRound(...args: ScriptArgs): Promise<[string, number, number, number, string]>;
  escRoundContext(...args: ScriptArgs): Promise<string[][]>;
  escRaiseNextRound(...args: ScriptArgs): Promise<number>;
  escMarkRoundDone(...args: ScriptArgs): Promise<number>;
}

const ROUND_SCRIPTS = {
  escAllocateRound: { numberOfKeys: 2, lua: ALLOCATE_ROUND },
  escBeginRound: { lua: BEGIN_ROUND }, // 3 or 4 keys: the number comes first
  escRoundContext: { numberOfKeys: 3, lua: ROUND_CONTEXT },
  escRaiseNextRound: { numberOfKeys: 1, lua: RAISE_NEXT_ROUND },
  escMarkRoundDone: { numberOfKeys: 3, lua: MARK_ROUND_DONE },
};

/** An issue's agent rounds: the round counter and limit (in the issue's hash), each spawn job's round, rounds run to their end, round timings. */
export class IssueRounds {
  readonly #redis: Redis & RoundCommands;
  readonly #gateKeys: GateKeys;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<RoundCommands>(redis, ROUND_SCRIPTS);
    this.#gateKeys = new GateKeys(prefix);
  }

  /**
   * Field of the issue's hash: the round of spawn job `jobId`, so a retried job keeps its round
   * number, until its round runs to its end (markRoundDone removes it). In the issue's hash rather
   * than a hash of its own: one key less per issue (a parked gate's Redis, tools/bench/README.md).
   */
  static spawnField(jobId: string): string {
    return `spawn:${jobId}`;
  }
  /**
   * Hash: spawn job id → round, as written before the round of a job moved into the issue's hash
   * (spawnField); still read, so a job allocated before an upgrade keeps its round, and its field
   * removed when that round ends.
   */
  spawnsKey(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:spawns`;
  }
  /**
   * Set: spawn job ids whose round ran to its end. A job re-run after its worker died between the
   * agent's exit and the spawn queue recording the completion finds itself here and does not run again.
   */
  roundsDoneKey(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:done`;
  }
  /** Hash: round → JSON RoundTiming (human wait and agent run time), for the status comment. */
  roundTimesKey(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:roundTimes`;
  }

  /** The round the issue's agent is in now (the last one allocated), or 0 before any spawn. */
  async currentRound(ref: IssueKeyRef): Promise<number> {
    const next = await this.#redis.hget(issueKey(this.prefix, ref), "nextRound");
    return Math.max(0, Number(next ?? 0) - 1);
  }

  /**
   * A spawn job's Redis work before its agent starts, in one round trip: claims `claimGate` (a
   * resume), raises the round limit by `raiseLimitBy` past the rounds used, and allocates the job's
   * round when `allocate` is given and the claim held and the issue is open. See BEGIN_ROUND.
   */
  async beginRound(
    ref: IssueKeyRef,
    jobId: string,
    options: { claimGate?: string; allocate?: { maxRounds: number; lowest: number }; raiseLimitBy?: number },
  ): Promise<RoundStart> {
    const keys = [
      issueKey(this.prefix, ref),
      this.spawnsKey(ref),
      epochKey(this.prefix),
      this.roundsDoneKey(ref),
      ...(options.claimGate === undefined ? [] : [this.#gateKeys.gate(options.claimGate)]),
    ];
    const [claim, closed, round, currentRound, epoch] = await this.#redis.escBeginRound(
      keys.length,
      ...keys,
      jobId,
      options.allocate ? "1" : "0",
      options.allocate?.maxRounds ?? 0,
      options.allocate?.lowest ?? 0,
      options.raiseLimitBy ?? 0,
      IssueRounds.spawnField(jobId),
    );
    return {
      claim,
      closed: closed === 1,
      round: round >= 0 ? round : undefined,
      exhausted: round === -1,
      currentRound,
      epoch: epoch ? Number(epoch) : undefined,
    };
  }

  /** The issue, its gates in ask order, its notes and its current round, in one round trip. */
  async roundRecords(ref: IssueKeyRef): Promise<RoundRecords> {
    const [issue = [], notes = [], ...gates] = await this.#redis.escRoundContext(
      issueKey(this.prefix, ref),
      this.#gateKeys.issueGates(ref),
      notesKey(this.prefix, ref),
      this.#gateKeys.gatePrefix(),
    );
    const issueHash = pairs(issue);
    return {
      issue: toIssue(issueHash),
      gates: gates
        .map(pairs)
        .filter((h) => h.id)
        .map(toGate),
      notes: notes.map((n) => JSON.parse(n) as HumanNote),
      currentRound: Math.max(0, Number(issueHash.nextRound ?? 0) - 1),
    };
  }

  /**
   * The spawn job's round ran to its end (success, final failure, or /stop): a re-run of the job
   * skips it, and the job's round (spawnField) is dropped with it. See MARK_ROUND_DONE.
   */
  async markRoundDone(ref: IssueKeyRef, jobId: string): Promise<void> {
    await this.#redis.escMarkRoundDone(this.roundsDoneKey(ref), issueKey(this.prefix, ref), this.spawnsKey(ref), jobId, IssueRounds.spawnField(jobId));
  }

  /**
   * The round number of a spawn job, the same on every retry of that job; undefined when a new
   * round would pass the issue's round limit (`maxRounds`, or what a human granted since).
   */
  async allocateRound(ref: IssueKeyRef, jobId: string, maxRounds: number, lowest = 0): Promise<number | undefined> {
    const round = Number(
      await this.#redis.escAllocateRound(this.spawnsKey(ref), issueKey(this.prefix, ref), jobId, maxRounds, lowest, IssueRounds.spawnField(jobId)),
    );
    return round < 0 ? undefined : round;
  }

  /** A human granted more rounds (answered "retry" on a rounds_exhausted gate). */
  async raiseRoundLimit(ref: IssueKeyRef, limit: number): Promise<void> {
    await this.#redis.hset(issueKey(this.prefix, ref), "roundLimit", limit);
  }

  /** Restores the round counter from the status comment, where Redis lost it (one it still has stays). */
  async restoreNextRound(ref: IssueKeyRef, nextRound: number): Promise<void> {
    await this.#redis.hsetnx(issueKey(this.prefix, ref), "nextRound", nextRound);
  }

  /** Raises the issue's round counter to at least `nextRound` (a rebuild that found later rounds on GitHub). */
  async raiseNextRound(ref: IssueKeyRef, nextRound: number): Promise<void> {
    await this.#redis.escRaiseNextRound(issueKey(this.prefix, ref), nextRound);
  }

  /** Records a round's timing when its agent exits (a retried round's last attempt wins). */
  async recordRoundTiming(ref: IssueKeyRef, timing: RoundTiming): Promise<void> {
    await this.#redis.hset(this.roundTimesKey(ref), timing.round, JSON.stringify(timing));
  }

  /** Restores round timings from the status comment where Redis lost them. */
  async restoreRoundTimings(ref: IssueKeyRef, timings: readonly RoundTiming[]): Promise<void> {
    const key = this.roundTimesKey(ref);
    for (const timing of timings) await this.#redis.hsetnx(key, String(timing.round), JSON.stringify(timing));
  }

  /** The issue's round timings, by round. */
  async roundTimings(ref: IssueKeyRef): Promise<RoundTiming[]> {
    const all = await this.#redis.hvals(this.roundTimesKey(ref));
    return all.map((t) => JSON.parse(t) as RoundTiming).sort((a, b) => a.round - b.round);
  }
}
