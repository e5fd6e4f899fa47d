import type { Redis } from "ioredis";
import { AskSchema } from "../protocol/ask.js";
import { Keys, type IssueKeyRef } from "./keys.js";
import type { ApprovalRule, Vote } from "../protocol/approval.js";
import { ALLOCATE_ROUND, BEGIN_ROUND, KEPT_TEXT_EDITED, CANCEL_GATE, NEXT_STATUS_SEQ, CLAIM_RESUME, FINISH_RESUME, MARK_OVERDUE, RECORD_SUPERSEDED_ANSWER, OPEN_GATE, ENQUEUE_FEEDBACK, PAUSE_WRITES, PAUSED_INSTALLATIONS, RAISE_NEXT_ROUND, RECORD_ANSWER, RECORD_VOTE, RESTORE_GATE, REVISE_ANSWERS, REVISE_NOTE, KEEP_DELETED_NOTE, ROUND_CONTEXT, SETTLE_WRITE, TAKE_WRITE } from "./scripts.js";
import type { BodyEdit, Gate, GateAnswerers, GateState, HumanNote, IssueRecord, RecordedAnswer, RoundTiming, TitleEdit, Withdrawal } from "./types.js";

/** `reopened`: how often a withdrawn answer opened the gate again (part of its resume's job id). */
export type RecordResult =
  | { outcome: "recorded"; reopened: number }
  | { outcome: "partial"; answers: RecordedAnswer[] }
  | { outcome: "same"; state: GateState; reopened: number }
  | { outcome: "taken"; state: GateState; answeredBy: string }
  | { outcome: "missing" };

export type VoteResult =
  | { outcome: "counted" | "same" | "repeated" | "changed"; votes: Vote[] }
  | { outcome: "closed"; state: GateState }
  | { outcome: "missing" };

export type ReviseResult = { outcome: "none" | "reopened" | "replaced"; state: GateState } | { outcome: "missing" };

/** What a spawn job found and did in Redis before starting its agent (GateStore.beginRound). */
export interface RoundStart {
  /** "claimed" (also when there was no gate to claim), else the gate's state ("missing" when Redis has none). */
  claim: string;
  /** The issue is closed: no round was allocated. */
  closed: boolean;
  /** The job's round; undefined when none was asked for, the issue is closed or the limit was reached (`exhausted`). */
  round?: number;
  exhausted: boolean;
  /** The issue's round after the allocation (the last one allocated, 0 before any). */
  currentRound: number;
  /** The namespace's epoch (see Keys.epoch); undefined when Redis has none. */
  epoch?: number;
}

/** Everything a spawn task is rendered from, read at once. */
export interface RoundContext {
  issue?: IssueRecord;
  /** Every gate of the issue in ask order. */
  gates: Gate[];
  notes: HumanNote[];
  /** The issue's round now (see currentRound). */
  currentRound: number;
}

/** A gate as the ask creates it, before any answer. */
export type NewGate = Pick<Gate, "id" | "repo" | "issue" | "installationId" | "round" | "ask" | "askedAt" | "askedBy" | "askUrl"> & Partial<Pick<Gate, "answerers" | "approvalRule">>;

/** The hash fields of a gate: the one place that maps a Gate to its Redis representation. */
function gateFields(gate: NewGate & Partial<Gate>): Record<string, string> {
  const optional = {
    answeredBy: gate.answeredBy,
    answeredAt: gate.answeredAt,
    answerCommentId: gate.answerCommentId,
    closedReason: gate.closedReason,
    answerers: gate.answerers === undefined ? undefined : JSON.stringify(gate.answerers),
    approvalRule: gate.approvalRule === undefined ? undefined : JSON.stringify(gate.approvalRule),
    withdrawn: gate.withdrawn?.length ? JSON.stringify(gate.withdrawn) : undefined,
  };
  return {
    id: gate.id,
    repo: gate.repo,
    issue: String(gate.issue),
    installationId: String(gate.installationId),
    round: String(gate.round),
    ask: JSON.stringify(gate.ask),
    askedAt: String(gate.askedAt),
    askedBy: gate.askedBy,
    askUrl: gate.askUrl,
    // No answers yet is no field (every reader takes its absence for none): an open gate's hash stays a size smaller.
    ...(gate.answers?.length ? { answers: JSON.stringify(gate.answers) } : {}),
    ...Object.fromEntries(Object.entries(optional).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))),
  };
}

type ScriptedRedis = Redis & {
  escOpenGate(...args: (string | number)[]): Promise<[string, string]>;
  escRecordAnswer(...args: (string | number)[]): Promise<string[]>;
  escRecordVote(...args: (string | number)[]): Promise<string[]>;
  escReviseAnswers(...args: (string | number)[]): Promise<[string, string]>;
  escReviseNote(...args: (string | number)[]): Promise<number>;
  escKeepDeletedNote(...args: (string | number)[]): Promise<number>;
  escClaimResume(...args: (string | number)[]): Promise<string>;
  escCancelGate(...args: (string | number)[]): Promise<number>;
  escAllocateRound(...args: (string | number)[]): Promise<number>;
  escBeginRound(...args: (string | number)[]): Promise<[string, number, number, number, string]>;
  escRoundContext(...args: (string | number)[]): Promise<string[][]>;
  escRestoreGate(...args: (string | number)[]): Promise<number>;
  escFinishResume(...args: (string | number)[]): Promise<number>;
  escMarkOverdue(...args: (string | number)[]): Promise<number>;
  escRecordSupersededAnswer(...args: (string | number)[]): Promise<string>;
  escTakeWrite(...args: (string | number)[]): Promise<[number, string]>;
  escSettleWrite(...args: (string | number)[]): Promise<number>;
  escPauseWrites(...args: (string | number)[]): Promise<number>;
  escPausedInstallations(...args: (string | number)[]): Promise<string[]>;
  escRaiseNextRound(...args: (string | number)[]): Promise<number>;
  escEnqueueFeedback(...args: (string | number)[]): Promise<number>;
  escKeptTextEdited(...args: (string | number)[]): Promise<number>;
  escNextStatusSeq(...args: (string | number)[]): Promise<number>;
};

/** The write budget's windows and limits (see src/github/writeBudget.ts). */
export interface WriteWindows {
  minuteMs: number;
  perMinute: number;
  hourMs: number;
  perHour: number;
}

/** Gate and issue records in Redis, and their atomic transitions. The only writer of those keys. */
export class GateStore {
  readonly keys: Keys;
  readonly #redis: ScriptedRedis;

  constructor(redis: Redis, prefix: string) {
    this.keys = new Keys(prefix);
    const scripted = redis as ScriptedRedis;
    if (typeof scripted.escOpenGate !== "function") {
      redis.defineCommand("escOpenGate", { numberOfKeys: 4, lua: OPEN_GATE });
      redis.defineCommand("escRecordAnswer", { numberOfKeys: 3, lua: RECORD_ANSWER });
      redis.defineCommand("escClaimResume", { numberOfKeys: 1, lua: CLAIM_RESUME });
      redis.defineCommand("escCancelGate", { numberOfKeys: 3, lua: CANCEL_GATE });
      redis.defineCommand("escAllocateRound", { numberOfKeys: 2, lua: ALLOCATE_ROUND });
      redis.defineCommand("escRestoreGate", { numberOfKeys: 3, lua: RESTORE_GATE });
      redis.defineCommand("escFinishResume", { numberOfKeys: 1, lua: FINISH_RESUME });
    }
    if (typeof scripted.escMarkOverdue !== "function") {
      redis.defineCommand("escMarkOverdue", { numberOfKeys: 1, lua: MARK_OVERDUE });
      redis.defineCommand("escRecordSupersededAnswer", { numberOfKeys: 1, lua: RECORD_SUPERSEDED_ANSWER });
    }
    if (typeof scripted.escReviseAnswers !== "function") {
      redis.defineCommand("escReviseAnswers", { numberOfKeys: 4, lua: REVISE_ANSWERS });
      redis.defineCommand("escReviseNote", { numberOfKeys: 1, lua: REVISE_NOTE });
      redis.defineCommand("escKeepDeletedNote", { numberOfKeys: 1, lua: KEEP_DELETED_NOTE });
    }
    if (typeof scripted.escRecordVote !== "function") redis.defineCommand("escRecordVote", { numberOfKeys: 2, lua: RECORD_VOTE });
    if (typeof scripted.escBeginRound !== "function") {
      redis.defineCommand("escBeginRound", { lua: BEGIN_ROUND }); // 3 or 4 keys: the number comes first
      redis.defineCommand("escRoundContext", { numberOfKeys: 3, lua: ROUND_CONTEXT });
    }
    if (typeof scripted.escTakeWrite !== "function") {
      redis.defineCommand("escTakeWrite", { numberOfKeys: 3, lua: TAKE_WRITE });
      redis.defineCommand("escSettleWrite", { numberOfKeys: 1, lua: SETTLE_WRITE });
      redis.defineCommand("escPauseWrites", { numberOfKeys: 1, lua: PAUSE_WRITES });
      redis.defineCommand("escPausedInstallations", { numberOfKeys: 1, lua: PAUSED_INSTALLATIONS });
      redis.defineCommand("escRaiseNextRound", { numberOfKeys: 1, lua: RAISE_NEXT_ROUND });
      redis.defineCommand("escEnqueueFeedback", { numberOfKeys: 2, lua: ENQUEUE_FEEDBACK });
      redis.defineCommand("escKeptTextEdited", { numberOfKeys: 1, lua: KEPT_TEXT_EDITED });
      redis.defineCommand("escNextStatusSeq", { numberOfKeys: 1, lua: NEXT_STATUS_SEQ });
    }
    this.#redis = scripted;
  }

  /**
   * Remembers the issue's installation, title and body so a spawn needs no GitHub read. Who last
   * changed the body is kept as it was, unless `bodyEdit` says (null: its author), in the same write.
   */
  async upsertIssue(
    record: Omit<IssueRecord, "nextRound" | "openGate" | "statusCommentId" | "state" | "bodyEdit" | "titleEdit"> & { state?: string; bodyEdit?: BodyEdit | null; titleEdit?: TitleEdit | null },
  ): Promise<void> {
    const key = this.keys.issue(record);
    const write = this.#redis.multi().hset(key, {
      // No assignees is no field (read back as none): a parked gate's issue hash stays a size smaller.
      ...(record.assignees.length > 0 ? { assignees: record.assignees.join(",") } : {}),
      ...(record.state ? { state: record.state } : {}),
      repo: record.repo,
      issue: record.issue,
      installationId: record.installationId,
      title: record.title,
      body: record.body,
      url: record.url,
      ...(record.author ? { author: record.author } : {}),
    });
    if (record.assignees.length === 0) write.hdel(key, "assignees");
    if (record.bodyEdit === null) write.hdel(key, "bodyEditor", "authorBody");
    if (record.bodyEdit) write.hset(key, "bodyEditor", record.bodyEdit.editor);
    if (record.bodyEdit?.authorBody !== undefined) write.hset(key, "authorBody", record.bodyEdit.authorBody);
    else if (record.bodyEdit) write.hdel(key, "authorBody");
    if (record.titleEdit === null) write.hdel(key, "titleEditor", "personsTitle");
    if (record.titleEdit) write.hset(key, { titleEditor: record.titleEdit.editor, personsTitle: record.titleEdit.personsTitle });
    await write.exec();
  }

  /** A change of the issue's title (`issues.edited`), by a person or under a bot's name (src/loop/issueTitle.ts). */
  async issueTitleEdited(ref: IssueKeyRef, edit: { title: string; byBot: boolean; editor: string; previous: string }): Promise<void> {
    await this.#redis.escKeptTextEdited(this.keys.issue(ref), "title", "titleEditor", "personsTitle", edit.title, edit.byBot ? "foreign" : "own", edit.editor, edit.previous);
  }

  /** An edit of the issue's body (`issues.edited`), by its author or by `editor`, another account (src/loop/issueBody.ts). */
  async issueBodyEdited(ref: IssueKeyRef, edit: { body: string; byAuthor: boolean; editor: string; previous: string }): Promise<void> {
    await this.#redis.escKeptTextEdited(this.keys.issue(ref), "body", "bodyEditor", "authorBody", edit.body, edit.byAuthor ? "own" : "foreign", edit.editor, edit.previous);
  }

  async getIssue(ref: IssueKeyRef): Promise<IssueRecord | undefined> {
    return toIssue(await this.#redis.hgetall(this.keys.issue(ref)));
  }

  /** The next status render's place among the issue's renders (src/protocol/statusComment.ts `seq`). */
  async nextStatusSeq(ref: IssueKeyRef, now: number): Promise<number> {
    return Number(await this.#redis.escNextStatusSeq(this.keys.issue(ref), now));
  }

  async setStatusCommentId(ref: IssueKeyRef, commentId: number): Promise<void> {
    await this.#redis.hset(this.keys.issue(ref), "statusCommentId", commentId);
  }

  /** The round the issue's agent is in now (the last one allocated), or 0 before any spawn. */
  async currentRound(ref: IssueKeyRef): Promise<number> {
    const next = await this.#redis.hget(this.keys.issue(ref), "nextRound");
    return Math.max(0, Number(next ?? 0) - 1);
  }

  /** Opens a gate once per ask comment; a still-open older gate on the issue is superseded. */
  async openGate(gate: NewGate): Promise<{ opened: boolean; superseded?: string }> {
    const ref = { repo: gate.repo, issue: gate.issue };
    const fields = gateFields(gate);
    const [outcome, superseded] = await this.#redis.escOpenGate(
      this.keys.gate(gate.id),
      this.keys.openGates(),
      this.keys.issue(ref),
      this.keys.issueGates(ref),
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
    const result = await this.#redis.escRecordAnswer(
      this.keys.gate(gate.id),
      this.keys.openGates(),
      this.keys.issue(gate),
      gate.id,
      JSON.stringify(answers),
      by,
      at,
      commentId,
      gate.ask.questions.length,
    );
    const [outcome, second, third, fourth] = result;
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
    const [outcome, ...rest] = await this.#redis.escRecordVote(this.keys.gate(gateId), this.keys.gateVotes(gateId), vote.login.toLowerCase(), JSON.stringify(vote), vote.vote, vote.commentId);
    if (outcome === "missing") return { outcome };
    if (outcome === "closed") return { outcome, state: rest[0] as GateState };
    const votes = rest.map((v) => JSON.parse(v) as Vote).sort((a, b) => a.at - b.at || a.commentId - b.commentId);
    return { outcome: outcome as "counted" | "same" | "repeated" | "changed", votes };
  }

  /** The votes recorded on an approval gate so far, oldest first. */
  async votes(gateId: string): Promise<Vote[]> {
    return (await this.#redis.hvals(this.keys.gateVotes(gateId))).map((v) => JSON.parse(v) as Vote).sort((a, b) => a.at - b.at || a.commentId - b.commentId);
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
      this.keys.issue(ref),
      this.keys.issueGates(ref),
      commentId,
      JSON.stringify(answers),
      at,
      gate.ask.questions.length,
      gate.id,
    );
    return outcome === "missing" ? { outcome } : { outcome: outcome as "none" | "reopened" | "replaced", state: state as GateState };
  }

  /**
   * A spawn job's Redis work before its agent starts, in one round trip: claims `claimGate` (a
   * resume), raises the round limit by `raiseLimitBy` past the rounds used, and allocates the job's
   * round when `allocate` is given and the claim held and the issue is open. See BEGIN_ROUND.
   */
  async beginRound(ref: IssueKeyRef, jobId: string, options: { claimGate?: string; allocate?: { maxRounds: number; lowest: number }; raiseLimitBy?: number }): Promise<RoundStart> {
    const keys = [this.keys.issue(ref), this.keys.issueSpawns(ref), this.keys.epoch(), ...(options.claimGate === undefined ? [] : [this.keys.gate(options.claimGate)])];
    const [claim, closed, round, currentRound, epoch] = await this.#redis.escBeginRound(
      keys.length,
      ...keys,
      jobId,
      options.allocate ? "1" : "0",
      options.allocate?.maxRounds ?? 0,
      options.allocate?.lowest ?? 0,
      options.raiseLimitBy ?? 0,
      this.keys.issueSpawnField(jobId),
    );
    return { claim, closed: closed === 1, round: round >= 0 ? round : undefined, exhausted: round === -1, currentRound, epoch: epoch ? Number(epoch) : undefined };
  }

  /** The issue, its gates in ask order, its notes and its current round, in one round trip. */
  async roundContext(ref: IssueKeyRef): Promise<RoundContext> {
    const [issue = [], notes = [], ...gates] = await this.#redis.escRoundContext(this.keys.issue(ref), this.keys.issueGates(ref), this.keys.issueNotes(ref), this.keys.gatePrefix());
    const issueHash = pairs(issue);
    return {
      issue: toIssue(issueHash),
      gates: gates.map(pairs).filter((h) => h.id).map(toGate),
      notes: notes.map((n) => JSON.parse(n) as HumanNote),
      currentRound: Math.max(0, Number(issueHash.nextRound ?? 0) - 1),
    };
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
    await this.#redis.multi().sadd(key, ...steps).expire(key, 90 * 86400).exec();
  }

  /** The spawn job's round ran to its end (success, final failure, or /stop): a re-run of the job skips it. */
  async markRoundDone(ref: IssueKeyRef, jobId: string): Promise<void> {
    await this.#redis.sadd(this.keys.issueRoundsDone(ref), jobId);
  }

  async roundDone(ref: IssueKeyRef, jobId: string): Promise<boolean> {
    return (await this.#redis.sismember(this.keys.issueRoundsDone(ref), jobId)) === 1;
  }

  /** When the app first wrote this namespace (see Keys.epoch); marked now, and `created`, if nothing was recorded. */
  async epoch(now = Date.now()): Promise<{ at: number; created: boolean }> {
    if ((await this.#redis.set(this.keys.epoch(), now, "NX")) === "OK") return { at: now, created: true };
    return { at: Number((await this.#redis.get(this.keys.epoch())) ?? now), created: false };
  }

  async cancelGate(gate: Pick<Gate, "id" | "repo" | "issue">, reason: string): Promise<boolean> {
    return (await this.#redis.escCancelGate(this.keys.gate(gate.id), this.keys.openGates(), this.keys.issue(gate), gate.id, reason, "cancelled")) === 1;
  }

  /** The open gate's question no longer stands (edited, or new commits on its pull request); false when it was not open. */
  async supersedeGate(gate: Pick<Gate, "id" | "repo" | "issue">, reason: string): Promise<boolean> {
    return (await this.#redis.escCancelGate(this.keys.gate(gate.id), this.keys.openGates(), this.keys.issue(gate), gate.id, reason, "superseded")) === 1;
  }

  /** Keeps the first answer given to a superseded gate (see RECORD_SUPERSEDED_ANSWER). */
  async recordSupersededAnswer(gateId: string, answers: RecordedAnswer[], by: string, at: number, commentId: number): Promise<"recorded" | "same" | "taken" | GateState | "missing"> {
    return (await this.#redis.escRecordSupersededAnswer(this.keys.gate(gateId), JSON.stringify(answers), by, at, commentId)) as "recorded" | "same" | "taken" | GateState | "missing";
  }

  /**
   * The round number of a spawn job, the same on every retry of that job; undefined when a new
   * round would pass the issue's round limit (`maxRounds`, or what a human granted since).
   */
  async allocateRound(ref: IssueKeyRef, jobId: string, maxRounds: number, lowest = 0): Promise<number | undefined> {
    const round = Number(await this.#redis.escAllocateRound(this.keys.issueSpawns(ref), this.keys.issue(ref), jobId, maxRounds, lowest, this.keys.issueSpawnField(jobId)));
    return round < 0 ? undefined : round;
  }

  /**
   * Re-creates a settled gate (answered, resumed, cancelled…) that Redis lost, from the issue's
   * status comment. Returns false when Redis still had it.
   */
  async restoreGate(gate: Gate): Promise<boolean> {
    const ref = { repo: gate.repo, issue: gate.issue };
    const fields = gateFields(gate);
    const restored = await this.#redis.escRestoreGate(this.keys.gate(gate.id), this.keys.issueGates(ref), this.keys.issue(ref), gate.id, gate.state, ...Object.entries(fields).flat());
    return restored === 1;
  }

  /** Restores the round counter and status comment id from the status comment, where Redis lost them. */
  async restoreIssueCounters(ref: IssueKeyRef, nextRound: number, statusCommentId: number): Promise<void> {
    const key = this.keys.issue(ref);
    await this.#redis.hsetnx(key, "nextRound", nextRound);
    await this.#redis.hsetnx(key, "statusCommentId", statusCommentId);
  }

  async lastReconcile(): Promise<number | undefined> {
    const value = await this.#redis.get(this.keys.lastReconcile());
    return value ? Number(value) : undefined;
  }

  async setLastReconcile(at: number): Promise<void> {
    await this.#redis.set(this.keys.lastReconcile(), at);
  }

  async lastFullReconcile(): Promise<number | undefined> {
    const value = await this.#redis.get(this.keys.lastFullReconcile());
    return value ? Number(value) : undefined;
  }

  async setLastFullReconcile(at: number): Promise<void> {
    await this.#redis.set(this.keys.lastFullReconcile(), at);
  }

  /** The repositories (as written, by installation) where a gate is open: what a periodic reconciliation always reads. */
  async openGateRepos(): Promise<Map<number, Set<string>>> {
    const ids = await this.#redis.zrange(this.keys.openGates(), 0, -1);
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hmget(this.keys.gate(id), "installationId", "repo");
    const out = new Map<number, Set<string>>();
    for (const [, row] of (await pipeline.exec()) ?? []) {
      const [installationId, repo] = (row ?? []) as Array<string | null>;
      if (!installationId || !repo) continue;
      const repos = out.get(Number(installationId)) ?? new Set<string>();
      repos.add(repo);
      out.set(Number(installationId), repos);
    }
    return out;
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
    return rows.map(([, h]) => h as Record<string, string>).filter((h) => h.id).map(toGate);
  }

  /** Open gates, oldest first. */
  async openGates(limit = 1000): Promise<Gate[]> {
    const ids = await this.#redis.zrange(this.keys.openGates(), 0, limit - 1);
    const gates = await Promise.all(ids.map((id) => this.getGate(id)));
    return gates.filter((g): g is Gate => g !== undefined);
  }

  /** Appends a line to the status comment's log; returns its sequence number (1-based). */
  async appendStatusLine(ref: IssueKeyRef, line: string): Promise<number> {
    return this.#redis.rpush(this.keys.issueStatusLog(ref), line);
  }

  async statusLines(ref: IssueKeyRef): Promise<string[]> {
    return this.#redis.lrange(this.keys.issueStatusLog(ref), 0, -1);
  }

  /** How many status lines the status comment on GitHub shows; newer jobs skip when it is ahead. */
  async statusRendered(ref: IssueKeyRef): Promise<number> {
    return Number((await this.#redis.hget(this.keys.issue(ref), "statusRendered")) ?? 0);
  }

  async setStatusRendered(ref: IssueKeyRef, count: number): Promise<void> {
    await this.#redis.hset(this.keys.issue(ref), "statusRendered", count);
  }

  /** The app posted comment `echoId` quoting reply `of` (kept 90 days, like a ladder's steps). */
  async rememberEcho(ref: IssueKeyRef, of: number, echoId: number): Promise<void> {
    const key = this.keys.issueEchoes(ref, of);
    await this.#redis.multi().sadd(key, echoId).expire(key, 90 * 86400).exec();
  }

  /** The app's comments quoting reply `of`. */
  async echoes(ref: IssueKeyRef, of: number): Promise<number[]> {
    return (await this.#redis.smembers(this.keys.issueEchoes(ref, of))).map(Number);
  }

  /** Reply `of`'s echoes were redacted. */
  async forgetEchoes(ref: IssueKeyRef, of: number): Promise<void> {
    await this.#redis.del(this.keys.issueEchoes(ref, of));
  }

  /** Remembers for a day that the comment was deleted (see Keys.deletedComment). */
  async markCommentDeleted(repo: string, commentId: number): Promise<void> {
    await this.#redis.set(this.keys.deletedComment(repo, commentId), "1", "EX", 86400);
  }

  async commentWasDeleted(repo: string, commentId: number): Promise<boolean> {
    return (await this.#redis.exists(this.keys.deletedComment(repo, commentId))) === 1;
  }

  /** True only the first time `what` is marked within `ttlSeconds`: for replies that must be sent once. */
  async firstTime(what: string, ttlSeconds = 30 * 86400): Promise<boolean> {
    return (await this.#redis.set(this.keys.once(what), "1", "EX", ttlSeconds, "NX")) === "OK";
  }

  async addNote(ref: IssueKeyRef, note: HumanNote): Promise<void> {
    await this.#redis.rpush(this.keys.issueNotes(ref), JSON.stringify(note));
  }

  /** A /note's comment was edited (its new guidance) or deleted (""): see REVISE_NOTE. Returns how many notes changed. */
  async reviseNote(ref: IssueKeyRef, url: string, text: string, deliveryId = ""): Promise<number> {
    return Number(await this.#redis.escReviseNote(this.keys.issueNotes(ref), url, text, deliveryId));
  }

  /** A /note's comment was deleted by `by`, not its author: the note stands, marked (see KEEP_DELETED_NOTE). */
  async keepDeletedNote(ref: IssueKeyRef, url: string, by: string): Promise<number> {
    return Number(await this.#redis.escKeepDeletedNote(this.keys.issueNotes(ref), url, by));
  }

  async notes(ref: IssueKeyRef): Promise<HumanNote[]> {
    return (await this.#redis.lrange(this.keys.issueNotes(ref), 0, -1)).map((n) => JSON.parse(n) as HumanNote);
  }

  /** Records a round's timing when its agent exits (a retried round's last attempt wins). */
  async recordRoundTiming(ref: IssueKeyRef, timing: RoundTiming): Promise<void> {
    await this.#redis.hset(this.keys.issueRoundTimes(ref), timing.round, JSON.stringify(timing));
  }

  /** Restores round timings from the status comment where Redis lost them. */
  async restoreRoundTimings(ref: IssueKeyRef, timings: readonly RoundTiming[]): Promise<void> {
    const key = this.keys.issueRoundTimes(ref);
    for (const timing of timings) await this.#redis.hsetnx(key, String(timing.round), JSON.stringify(timing));
  }

  /** The issue's round timings, by round. */
  async roundTimings(ref: IssueKeyRef): Promise<RoundTiming[]> {
    const all = await this.#redis.hvals(this.keys.issueRoundTimes(ref));
    return all.map((t) => JSON.parse(t) as RoundTiming).sort((a, b) => a.round - b.round);
  }

  /** A human granted more rounds (answered "retry" on a rounds_exhausted gate). */
  async raiseRoundLimit(ref: IssueKeyRef, limit: number): Promise<void> {
    await this.#redis.hset(this.keys.issue(ref), "roundLimit", limit);
  }

  /** Raises the issue's round counter to at least `nextRound` (a rebuild that found later rounds on GitHub). */
  async raiseNextRound(ref: IssueKeyRef, nextRound: number): Promise<void> {
    await this.#redis.escRaiseNextRound(this.keys.issue(ref), nextRound);
  }

  /**
   * Marks a status render of the issue as scheduled for `ttlMs`; true when none was, so the caller
   * schedules it. Lines appended while it is pending ride along with that render.
   */
  async markStatusPending(ref: IssueKeyRef, ttlMs: number): Promise<boolean> {
    return (await this.#redis.set(this.keys.issueStatusPending(ref), "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX")) === "OK";
  }

  /** A status render starts reading the log: lines appended from now on schedule the next one. */
  async clearStatusPending(ref: IssueKeyRef): Promise<void> {
    await this.#redis.del(this.keys.issueStatusPending(ref));
  }

  /** Puts a feedback job in the issue's write order (before it is queued); a job already there keeps its place. */
  async enqueueFeedback(ref: IssueKeyRef, jobId: string): Promise<void> {
    await this.#redis.escEnqueueFeedback(this.keys.issue(ref), this.keys.issueFeedbackOrder(ref), jobId);
  }

  /** The issue's oldest feedback job not yet done, and until when it was put off (if it was). */
  async feedbackHead(ref: IssueKeyRef): Promise<{ jobId: string; dueAt?: number } | undefined> {
    const [jobId] = await this.#redis.zrange(this.keys.issueFeedbackOrder(ref), 0, 0);
    if (jobId === undefined) return undefined;
    const due = await this.#redis.hget(this.keys.issueFeedbackDue(ref), jobId);
    return { jobId, dueAt: due ? Number(due) : undefined };
  }

  async isQueuedFeedback(ref: IssueKeyRef, jobId: string): Promise<boolean> {
    return (await this.#redis.zscore(this.keys.issueFeedbackOrder(ref), jobId)) !== null;
  }

  /** The feedback job was put off until `dueAt` (ms): the issue's later jobs wait until after it. */
  async feedbackPutOff(ref: IssueKeyRef, jobId: string, dueAt: number): Promise<void> {
    await this.#redis.hset(this.keys.issueFeedbackDue(ref), jobId, dueAt);
  }

  /** The feedback job is done (or gone): the issue's next job may write. */
  async feedbackDone(ref: IssueKeyRef, jobId: string): Promise<void> {
    await this.#redis.multi().zrem(this.keys.issueFeedbackOrder(ref), jobId).hdel(this.keys.issueFeedbackDue(ref), jobId).exec();
  }

  /**
   * Whether the app last put the awaiting label on ("on") or took it off / skipped it ("off"), or is
   * taking it off ("leaving": its own removal's webhook may come before "off" is written); undefined when unknown.
   */
  async awaitingLabel(ref: IssueKeyRef): Promise<"on" | "off" | "leaving" | undefined> {
    const value = await this.#redis.hget(this.keys.issue(ref), "awaitingLabel");
    return value === "on" || value === "off" || value === "leaving" ? value : undefined;
  }

  async setAwaitingLabel(ref: IssueKeyRef, value: "on" | "off" | "leaving"): Promise<void> {
    await this.#redis.hset(this.keys.issue(ref), "awaitingLabel", value);
  }

  /** Takes one slot of the installation's write budget: 0 when granted, else ms to wait and why. */
  async takeWrite(installationId: number, windows: WriteWindows, member: string): Promise<{ waitMs: number; reason: "ok" | "paused" | "minute" | "hour" }> {
    const [waitMs, reason] = await this.#redis.escTakeWrite(
      this.keys.githubWrites(installationId),
      this.keys.githubWritePauses(),
      this.keys.githubWriteNextWake(installationId),
      installationId,
      windows.minuteMs,
      windows.perMinute,
      windows.hourMs,
      windows.perHour,
      member,
    );
    return { waitMs: Number(waitMs), reason: reason as "ok" | "paused" | "minute" | "hour" };
  }

  /** The granted write `member` has been sent: it counts from now. */
  async settleWrite(installationId: number, member: string): Promise<void> {
    await this.#redis.escSettleWrite(this.keys.githubWrites(installationId), member);
  }

  /** Writes in the installation's log within the last `windowMs` (for tests and the status page). */
  async writesWithin(installationId: number, windowMs: number): Promise<number> {
    const [seconds, micros] = await this.#redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    return this.#redis.zcount(this.keys.githubWrites(installationId), now - windowMs + 1, "+inf");
  }

  /** Stops the installation's writes for `ms` (a longer pause already set stays); returns the ms left. */
  async pauseWrites(installationId: number, ms: number): Promise<number> {
    return Number(await this.#redis.escPauseWrites(this.keys.githubWritePauses(), installationId, Math.max(1, Math.ceil(ms))));
  }

  /** Installations whose writes are paused now, with the ms left. */
  async pausedInstallations(): Promise<Array<{ installationId: number; msLeft: number }>> {
    const flat = await this.#redis.escPausedInstallations(this.keys.githubWritePauses());
    const out: Array<{ installationId: number; msLeft: number }> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ installationId: Number(flat[i]), msLeft: Number(flat[i + 1]) });
    return out;
  }

  /** Counts one more secondary-limit response in a row for the installation (forgotten after `ttlSeconds`). */
  async addWriteStrike(installationId: number, ttlSeconds: number): Promise<number> {
    const key = this.keys.githubWriteStrikes(installationId);
    const strikes = await this.#redis.incr(key);
    await this.#redis.expire(key, ttlSeconds);
    return strikes;
  }

  /** A write went through: the backoff starts again from the beginning. */
  async clearWriteStrikes(installationId: number): Promise<void> {
    await this.#redis.del(this.keys.githubWriteStrikes(installationId));
  }

  async cachedTeamMembership(team: string, login: string): Promise<boolean | undefined> {
    const value = await this.#redis.get(this.keys.teamMember(team, login));
    return value === null ? undefined : value === "1";
  }

  async cacheTeamMembership(team: string, login: string, member: boolean, ttlSeconds: number): Promise<void> {
    await this.#redis.set(this.keys.teamMember(team, login), member ? "1" : "0", "EX", ttlSeconds);
  }

  async cachedPermission(repo: string, login: string): Promise<string | null> {
    return this.#redis.get(this.keys.permission(repo, login));
  }

  async cachePermission(repo: string, login: string, permission: string, ttlSeconds: number): Promise<void> {
    await this.#redis.set(this.keys.permission(repo, login), permission, "EX", ttlSeconds);
  }
}

function toIssue(h: Record<string, string>): IssueRecord | undefined {
  if (!h.repo) return undefined;
  return {
    repo: h.repo,
    issue: Number(h.issue),
    installationId: Number(h.installationId),
    title: h.title ?? "",
    body: h.body ?? "",
    url: h.url ?? "",
    ...(h.author ? { author: h.author } : {}),
    ...(h.titleEditor ? { titleEdit: { editor: h.titleEditor, personsTitle: h.personsTitle ?? "" } } : {}),
    ...(h.bodyEditor ? { bodyEdit: { editor: h.bodyEditor, ...(h.authorBody !== undefined ? { authorBody: h.authorBody } : {}) } } : {}),
    assignees: h.assignees ? h.assignees.split(",") : [],
    state: h.state ?? "open",
    openGate: h.openGate || undefined,
    nextRound: Number(h.nextRound ?? 0),
    statusCommentId: h.statusCommentId ? Number(h.statusCommentId) : undefined,
  };
}

/** A hash as a script returns it (HGETALL's flat field, value list). */
function pairs(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

function toGate(h: Record<string, string>): Gate {
  return {
    id: h.id!,
    repo: h.repo!,
    issue: Number(h.issue),
    installationId: Number(h.installationId),
    round: Number(h.round),
    ask: AskSchema.parse(JSON.parse(h.ask!)),
    askedAt: Number(h.askedAt),
    askedBy: h.askedBy ?? "",
    askUrl: h.askUrl ?? "",
    ...(h.answerers ? { answerers: JSON.parse(h.answerers) as GateAnswerers } : {}),
    ...(h.approvalRule ? { approvalRule: JSON.parse(h.approvalRule) as ApprovalRule } : {}),
    state: h.state as GateState,
    answers: JSON.parse(h.answers ?? "[]") as RecordedAnswer[],
    answeredBy: h.answeredBy,
    answeredAt: h.answeredAt ? Number(h.answeredAt) : undefined,
    answerCommentId: h.answerCommentId ? Number(h.answerCommentId) : undefined,
    resumedAt: h.resumedAt ? Number(h.resumedAt) : undefined,
    closedReason: h.closedReason,
    overdueAt: h.overdueAt ? Number(h.overdueAt) : undefined,
    ...(h.withdrawn ? { withdrawn: JSON.parse(h.withdrawn) as Withdrawal[] } : {}),
    ...(h.reopened ? { reopened: Number(h.reopened) } : {}),
  };
}
