import type { Redis } from "ioredis";
import type { Gate, GateState, NewGate, RecordedAnswer, Vote } from "../domain.js";
import { keyIn } from "../redis/prefix.js";
import { gateFields, pairs, toGate } from "./gateHash.js";
import {
  CANCEL_GATE,
  CLAIM_RESUME,
  FINISH_RESUME,
  INDEX_OPEN_REPOS,
  MARK_OVERDUE,
  OPEN_GATE,
  OPEN_REPOS_BUILT,
  RECORD_ANSWER,
  RECORD_SUPERSEDED_ANSWER,
  RECORD_VOTE,
  RESTORE_GATE,
  REVISE_ANSWERS,
} from "./gateScripts.js";
import { issueKey, type IssueKeyRef } from "./issueKey.js";
import { withScripts, type ScriptArgs } from "./scriptedRedis.js";

/** `reopened`: how often a withdrawn answer opened the gate again (part of its resume's job id). */
export type RecordResult =
  | { outcome: "recorded"; reopened: number }
  | { outcome: "partial"; answers: RecordedAnswer[] }
  | { outcome: "same"; state: GateState; reopened: number }
  | { outcome: "taken"; state: GateState; answeredBy: string }
  | { outcome: "missing" };

export type VoteResult =
  { outcome: "counted" | "same" | "repeated" | "changed"; votes: Vote[] } | { outcome: "closed"; state: GateState } | { outcome: "missing" };

export type ReviseResult = { outcome: "none" | "reopened" | "replaced"; state: GateState } | { outcome: "missing" };

/** The gate records' keys. */
export class GateKeys {
  constructor(readonly prefix: string) {}

  /** Hash: one gate (an ask comment awaiting, or having had, its answer). */
  gate(gateId: string): string {
    return `${this.gatePrefix()}${gateId}`;
  }
  /** What every gate key starts with, the id following: for a script that reads gates by id. */
  gatePrefix(): string {
    return keyIn(this.prefix, "gate:");
  }
  /** Set with TTL: the reminder-ladder steps already posted on the gate's issue (step numbers). */
  gateLadder(gateId: string): string {
    return keyIn(this.prefix, `ladder:${gateId}`);
  }
  /** Hash: an approval gate's votes, voter login (lower case) → vote JSON; one field per person, so each counts once. */
  gateVotes(gateId: string): string {
    return `${this.gate(gateId)}:votes`;
  }
  /** Sorted set of open gate ids, scored by ask time: the inbox. */
  openGates(): string {
    return keyIn(this.prefix, "gates:open");
  }
  /**
   * Hash: the repositories with open gates, '<installationId>:<repo as written>' → how many are open
   * there, and the field `built` once it counts every open gate (INDEX_OPEN_REPOS builds it, where a
   * Redis written before it existed, or wiped, has none); kept in the scripts that add a gate to the
   * open gates or take one out. What a scheduled reconciliation reads, in one command.
   */
  openGateRepos(): string {
    return keyIn(this.prefix, "gates:openRepos");
  }
  /** List: the issue's gate ids in ask order, the history folded into each spawn task. */
  issueGates(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:gates`;
  }
}

interface GateCommands {
  escOpenGate(...args: ScriptArgs): Promise<[string, string]>;
  escRecordAnswer(...args: ScriptArgs): Promise<string[]>;
  escRecordVote(...args: ScriptArgs): Promise<string[]>;
  escReviseAnswers(...args: ScriptArgs): Promise<[string, string]>;
  escClaimResume(...args: ScriptArgs): Promise<string>;
  escCancelGate(...args: ScriptArgs): Promise<number>;
  escRestoreGate(...args: ScriptArgs): Promise<number>;
  escFinishResume(...args: ScriptArgs): Promise<number>;
  escMarkOverdue(...args: ScriptArgs): Promise<number>;
  escRecordSupersededAnswer(...args: ScriptArgs): Promise<string>;
  escIndexOpenRepos(...args: ScriptArgs): Promise<string[]>;
}

const GATE_SCRIPTS = {
  escOpenGate: { numberOfKeys: 5, lua: OPEN_GATE },
  escRecordAnswer: { numberOfKeys: 4, lua: RECORD_ANSWER },
  escRecordVote: { numberOfKeys: 2, lua: RECORD_VOTE },
  escReviseAnswers: { numberOfKeys: 5, lua: REVISE_ANSWERS },
  escClaimResume: { numberOfKeys: 1, lua: CLAIM_RESUME },
  escCancelGate: { numberOfKeys: 4, lua: CANCEL_GATE },
  escRestoreGate: { numberOfKeys: 3, lua: RESTORE_GATE },
  escFinishResume: { numberOfKeys: 1, lua: FINISH_RESUME },
  escMarkOverdue: { numberOfKeys: 1, lua: MARK_OVERDUE },
  escRecordSupersededAnswer: { numberOfKeys: 1, lua: RECORD_SUPERSEDED_ANSWER },
  escIndexOpenRepos: { numberOfKeys: 2, lua: INDEX_OPEN_REPOS },
};

const byTime = (a: Vote, b: Vote) => a.at - b.at || a.commentId - b.commentId;

/**
 * Gates in Redis (their hashes, votes, ladder steps, the open gates and their repositories, each issue's gate list) and
 * their atomic transitions. The only writer of those keys, but for a spawn job's claim, which
 * IssueRounds.beginRound makes in the same script that allocates its round.
 */
export class GateRecords {
  readonly keys: GateKeys;
  readonly #redis: Redis & GateCommands;

  constructor(redis: Redis, prefix: string) {
    this.keys = new GateKeys(prefix);
    this.#redis = withScripts<GateCommands>(redis, GATE_SCRIPTS);
  }

  /** Opens a gate once per ask comment; a still-open older gate on the issue is superseded. */
  async openGate(gate: NewGate): Promise<{ opened: boolean; superseded?: string }> {
    const ref = { repo: gate.repo, issue: gate.issue };
    const fields = gateFields(gate);
    const [outcome, superseded] = await this.#redis.escOpenGate(
      this.keys.gate(gate.id),
      this.keys.openGates(),
      issueKey(this.keys.prefix, ref),
      this.keys.issueGates(ref),
      this.keys.openGateRepos(),
      gate.id,
      gate.askedAt,
      ...Object.entries(fields).flat(),
    );
    return { opened: outcome === "opened", superseded: superseded || undefined };
  }

  async getGate(gateId: string): Promise<Gate | undefined> {
    const h = await this.#redis.hgetall(this.keys.gate(gateId));
    return h.id ? toGate(h) : undefined;
  }

  /**
   * Merges answers into the gate if it is still open; it becomes answered once every question has
   * one. Idempotent for the same answering comment (`commentId` may be a synthetic id like "timeout-…").
   */
  async recordAnswer(gate: Gate, answers: RecordedAnswer[], by: string, commentId: number | string, at: number): Promise<RecordResult> {
    const [outcome, second, third, fourth] = await this.#redis.escRecordAnswer(
      this.keys.gate(gate.id),
      this.keys.openGates(),
      issueKey(this.keys.prefix, gate),
      this.keys.openGateRepos(),
      gate.id,
      JSON.stringify(answers),
      by,
      at,
      commentId,
      gate.ask.questions.length,
    );
    if (outcome === "recorded") return { outcome, reopened: Number(second ?? 0) };
    if (outcome === "partial") return { outcome, answers: JSON.parse(second ?? "[]") as RecordedAnswer[] };
    if (outcome === "same") return { outcome, state: second as GateState, reopened: Number(fourth ?? 0) };
    if (outcome === "taken") return { outcome, state: second as GateState, answeredBy: third ?? "" };
    return { outcome: "missing" };
  }

  /**
   * Records a person's vote on an open approval gate, once per person (see RECORD_VOTE); returns
   * every vote recorded so far, oldest first, for the caller to count.
   */
  async recordVote(gateId: string, vote: Vote): Promise<VoteResult> {
    const [outcome, ...rest] = await this.#redis.escRecordVote(
      this.keys.gate(gateId),
      this.keys.gateVotes(gateId),
      vote.login.toLowerCase(),
      JSON.stringify(vote),
      vote.vote,
      vote.commentId,
    );
    if (outcome === "missing") return { outcome };
    if (outcome === "closed") return { outcome, state: rest[0] as GateState };
    return { outcome: outcome as "counted" | "same" | "repeated" | "changed", votes: rest.map((v) => JSON.parse(v) as Vote).sort(byTime) };
  }

  /** The votes recorded on an approval gate so far, oldest first. */
  async votes(gateId: string): Promise<Vote[]> {
    return (await this.#redis.hvals(this.keys.gateVotes(gateId))).map((v) => JSON.parse(v) as Vote).sort(byTime);
  }

  /**
   * An answering comment was edited (`answers`: what it answers now) or deleted (none): its answers
   * on the gate are replaced in any state, so later rounds get only what GitHub shows. See
   * REVISE_ANSWERS: "reopened" when the gate lost an answer before its resume began (it is open
   * again, or superseded when a newer question stands); "none" when the comment answered nothing there.
   */
  async reviseAnswers(gate: Pick<Gate, "id" | "repo" | "issue" | "ask">, commentId: number, answers: RecordedAnswer[], at: number): Promise<ReviseResult> {
    const ref = { repo: gate.repo, issue: gate.issue };
    const [outcome, state] = await this.#redis.escReviseAnswers(
      this.keys.gate(gate.id),
      this.keys.openGates(),
      issueKey(this.keys.prefix, ref),
      this.keys.issueGates(ref),
      this.keys.openGateRepos(),
      commentId,
      JSON.stringify(answers),
      at,
      gate.ask.questions.length,
      gate.id,
    );
    return outcome === "missing" ? { outcome } : { outcome: outcome as "none" | "reopened" | "replaced", state: state as GateState };
  }

  /** A spawn job takes the answered gate; false when another job already did. */
  async claimResume(gateId: string, jobId: string): Promise<boolean> {
    return (await this.#redis.escClaimResume(this.keys.gate(gateId), jobId)) === "claimed";
  }

  async markResumed(gateId: string, at: number): Promise<void> {
    await this.#redis.hset(this.keys.gate(gateId), { state: "resumed", resumedAt: at });
  }

  /**
   * The round that resumed `gate` ran to its end (until then the gate stays "resuming", on the status
   * comment too, so a rebuild after Redis loss knows to run it again). A gate Redis lost while the
   * agent ran is restored as resumed, so the status comment records the finished round.
   */
  async finishResume(gate: Gate, at: number): Promise<void> {
    if ((await this.#redis.escFinishResume(this.keys.gate(gate.id), at)) === 0) await this.restoreGate({ ...gate, state: "resumed" });
  }

  /** The reminder ladder ran out on the open gate; false when it is no longer open. */
  async markOverdue(gateId: string, at: number): Promise<boolean> {
    return (await this.#redis.escMarkOverdue(this.keys.gate(gateId), at)) === 1;
  }

  /** Whether the gate's reminder-ladder step was already posted on the issue. */
  async ladderStepPosted(gateId: string, step: number): Promise<boolean> {
    return (await this.#redis.sismember(this.keys.gateLadder(gateId), step)) === 1;
  }

  /** Records ladder steps as posted (also before the gate exists: a rebuild seeds what the issue shows). */
  async markLadderStepsPosted(gateId: string, steps: readonly number[]): Promise<void> {
    if (steps.length === 0) return;
    const key = this.keys.gateLadder(gateId);
    await this.#redis
      .multi()
      .sadd(key, ...steps)
      .expire(key, 90 * 86400)
      .exec();
  }

  async cancelGate(gate: Pick<Gate, "id" | "repo" | "issue">, reason: string): Promise<boolean> {
    return (
      (await this.#redis.escCancelGate(
        this.keys.gate(gate.id),
        this.keys.openGates(),
        issueKey(this.keys.prefix, gate),
        this.keys.openGateRepos(),
        gate.id,
        reason,
        "cancelled",
      )) === 1
    );
  }

  /** The open gate's question no longer stands (edited, or new commits on its pull request); false when it was not open. */
  async supersedeGate(gate: Pick<Gate, "id" | "repo" | "issue">, reason: string): Promise<boolean> {
    return (
      (await this.#redis.escCancelGate(
        this.keys.gate(gate.id),
        this.keys.openGates(),
        issueKey(this.keys.prefix, gate),
        this.keys.openGateRepos(),
        gate.id,
        reason,
        "superseded",
      )) === 1
    );
  }

  /** Keeps the first answer given to a superseded gate (see RECORD_SUPERSEDED_ANSWER). */
  async recordSupersededAnswer(
    gateId: string,
    answers: RecordedAnswer[],
    by: string,
    at: number,
    commentId: number,
  ): Promise<"recorded" | "same" | "taken" | GateState | "missing"> {
    return (await this.#redis.escRecordSupersededAnswer(this.keys.gate(gateId), JSON.stringify(answers), by, at, commentId)) as
      "recorded" | "same" | "taken" | GateState | "missing";
  }

  /**
   * Re-creates a settled gate (answered, resumed, cancelled…) that Redis lost, from the issue's
   * status comment. Returns false when Redis still had it.
   */
  async restoreGate(gate: Gate): Promise<boolean> {
    const ref = { repo: gate.repo, issue: gate.issue };
    const fields = gateFields(gate);
    return (
      (await this.#redis.escRestoreGate(
        this.keys.gate(gate.id),
        this.keys.issueGates(ref),
        issueKey(this.keys.prefix, ref),
        gate.id,
        gate.state,
        ...Object.entries(fields).flat(),
      )) === 1
    );
  }

  /**
   * The repositories (as written, by installation) where a gate is open: what a periodic
   * reconciliation always reads. One HGETALL of their index; the first read where it was never
   * built (a Redis written before it existed, or wiped) builds it from the open gates, once.
   */
  async openGateRepos(): Promise<Map<number, Set<string>>> {
    const read = await this.#redis.hgetall(this.keys.openGateRepos());
    const index =
      OPEN_REPOS_BUILT in read ? read : pairs(await this.#redis.escIndexOpenRepos(this.keys.openGateRepos(), this.keys.openGates(), this.keys.gatePrefix()));
    const out = new Map<number, Set<string>>();
    for (const field of Object.keys(index)) {
      const at = field.indexOf(":");
      if (field === OPEN_REPOS_BUILT || at < 0) continue;
      const installationId = Number(field.slice(0, at));
      out.set(installationId, (out.get(installationId) ?? new Set<string>()).add(field.slice(at + 1)));
    }
    return out;
  }

  /**
   * Has the next openGateRepos count the open gates afresh: a full reconciliation's mark, so a count
   * a replica of an earlier version left wrong (it opens and closes gates without counting them,
   * while a rolling upgrade runs both) is put right at least daily.
   */
  async recountOpenGateRepos(): Promise<void> {
    await this.#redis.hdel(this.keys.openGateRepos(), OPEN_REPOS_BUILT);
  }

  /** The issue's most recent gate, whatever its state. */
  async lastGate(ref: IssueKeyRef): Promise<Gate | undefined> {
    const id = await this.#redis.lindex(this.keys.issueGates(ref), -1);
    return id ? this.getGate(id) : undefined;
  }

  /** Every gate of the issue in ask order: the history a spawn task folds in. */
  async issueGates(ref: IssueKeyRef): Promise<Gate[]> {
    const ids = await this.#redis.lrange(this.keys.issueGates(ref), 0, -1);
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.gate(id));
    const rows = (await pipeline.exec()) ?? [];
    return rows
      .map(([, h]) => h as Record<string, string>)
      .filter((h) => h.id)
      .map(toGate);
  }

  /** Open gates, oldest first. */
  async openGates(limit = 1000): Promise<Gate[]> {
    const ids = await this.#redis.zrange(this.keys.openGates(), 0, limit - 1);
    const gates = await Promise.all(ids.map((id) => this.getGate(id)));
    return gates.filter((g): g is Gate => g !== undefined);
  }
}
