import type { Gate, GateState, NewGate, RecordedAnswer, Vote } from "../domain.js";
import { gateFields, pairs, toGate, toVotes } from "./gateHash.js";
import { GateReads } from "./gateReads.js";
import { OPEN_REPOS_BUILT } from "./gateScripts.js";
import { issueKey } from "./issueKey.js";

/** `reopened`: how often a withdrawn answer opened the gate again (part of its resume's job id). */
export type RecordResult =
  | { outcome: "recorded"; reopened: number; gate: Gate }
  | { outcome: "partial"; answers: RecordedAnswer[] }
  | { outcome: "same"; state: GateState; reopened: number }
  | { outcome: "taken"; state: GateState; answeredBy: string }
  | { outcome: "missing" };

export type VoteResult =
  { outcome: "counted" | "same" | "repeated" | "changed"; votes: Vote[] } | { outcome: "closed"; state: GateState } | { outcome: "missing" };

export type ReviseResult = { outcome: "none" | "reopened" | "replaced"; state: GateState } | { outcome: "missing" };

/**
 * Gates in Redis (their hashes, votes, ladder steps, the open gates and their repositories, each issue's gate list) and
 * their atomic transitions, each one Lua script (gateScripts.ts); reading them is GateReads' (gateReads.ts), the key
 * layout GateKeys' (gateKeys.ts). The only writer of those keys, but for a spawn job's claim, which
 * IssueRounds.beginRound makes in the same script that allocates its round.
 */
export class GateRecords extends GateReads {
  /** Opens a gate once per ask comment; a still-open older gate on the issue is superseded. */
  async openGate(gate: NewGate): Promise<{ opened: boolean; superseded?: string }> {
    const ref = { repo: gate.repo, issue: gate.issue };
    const fields = gateFields(gate);
    const [outcome, superseded] = await this.redis.escOpenGate(
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

  /**
   * Merges answers into the gate if it is still open; it becomes answered once every question has
   * one. Idempotent for the same answering comment (`commentId` may be a synthetic id like "timeout-…").
   */
  async recordAnswer(gate: Gate, answers: RecordedAnswer[], by: string, commentId: number | string, at: number): Promise<RecordResult> {
    const reply = await this.redis.escRecordAnswer(
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
    const [outcome, second, third, fourth] = reply;
    // The gate as recorded, from the same script: what observers are told without reading it again.
    if (outcome === "recorded") return { outcome, reopened: Number(second ?? 0), gate: toGate(pairs(reply.slice(2))) };
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
    const [outcome, ...rest] = await this.redis.escRecordVote(
      this.keys.gate(gateId),
      this.keys.gateVotes(gateId),
      vote.login.toLowerCase(),
      JSON.stringify(vote),
      vote.vote,
      vote.commentId,
    );
    if (outcome === "missing") return { outcome };
    if (outcome === "closed") return { outcome, state: rest[0] as GateState };
    return { outcome: outcome as "counted" | "same" | "repeated" | "changed", votes: toVotes(rest) };
  }

  /**
   * An answering comment was edited (`answers`: what it answers now) or deleted (none): its answers
   * on the gate are replaced in any state, so later rounds get only what GitHub shows. See
   * REVISE_ANSWERS: "reopened" when the gate lost an answer before its resume began (it is open
   * again, or superseded when a newer question stands); "none" when the comment answered nothing there.
   */
  async reviseAnswers(gate: Pick<Gate, "id" | "repo" | "issue" | "ask">, commentId: number, answers: RecordedAnswer[], at: number): Promise<ReviseResult> {
    const ref = { repo: gate.repo, issue: gate.issue };
    const [outcome, state] = await this.redis.escReviseAnswers(
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
    return (await this.redis.escClaimResume(this.keys.gate(gateId), jobId)) === "claimed";
  }

  async markResumed(gateId: string, at: number): Promise<void> {
    await this.redis.hset(this.keys.gate(gateId), { state: "resumed", resumedAt: at });
  }

  /**
   * The round that resumed `gate` ran to its end (until then the gate stays "resuming", on the status
   * comment too, so a rebuild after Redis loss knows to run it again). A gate Redis lost while the
   * agent ran is restored as resumed, so the status comment records the finished round.
   */
  async finishResume(gate: Gate, at: number): Promise<void> {
    if ((await this.redis.escFinishResume(this.keys.gate(gate.id), at)) === 0) await this.restoreGate({ ...gate, state: "resumed" });
  }

  /** The reminder ladder ran out on the open gate; false when it is no longer open. */
  async markOverdue(gateId: string, at: number): Promise<boolean> {
    return (await this.redis.escMarkOverdue(this.keys.gate(gateId), at)) === 1;
  }

  /** Records ladder steps as posted (also before the gate exists: a rebuild seeds what the issue shows). */
  async markLadderStepsPosted(gateId: string, steps: readonly number[]): Promise<void> {
    if (steps.length === 0) return;
    const key = this.keys.gateLadder(gateId);
    await this.redis
      .multi()
      .sadd(key, ...steps)
      .expire(key, 90 * 86400)
      .exec();
  }

  async cancelGate(gate: Pick<Gate, "id" | "repo" | "issue">, reason: string): Promise<boolean> {
    return this.closeOpenGate(gate, reason, "cancelled");
  }

  /** The open gate's question no longer stands (edited, or new commits on its pull request); false when it was not open. */
  async supersedeGate(gate: Pick<Gate, "id" | "repo" | "issue">, reason: string): Promise<boolean> {
    return this.closeOpenGate(gate, reason, "superseded");
  }

  /** Closes an open gate in one script (its hash, the open set, the issue, the repositories' index); false when it was not open. */
  private async closeOpenGate(gate: Pick<Gate, "id" | "repo" | "issue">, reason: string, state: "cancelled" | "superseded"): Promise<boolean> {
    const keys = [this.keys.gate(gate.id), this.keys.openGates(), issueKey(this.keys.prefix, gate), this.keys.openGateRepos()] as const;
    return (await this.redis.escCancelGate(...keys, gate.id, reason, state)) === 1;
  }

  /** Keeps the first answer given to a superseded gate (see RECORD_SUPERSEDED_ANSWER). */
  async recordSupersededAnswer(
    gateId: string,
    answers: RecordedAnswer[],
    by: string,
    at: number,
    commentId: number,
  ): Promise<"recorded" | "same" | "taken" | GateState | "missing"> {
    return (await this.redis.escRecordSupersededAnswer(this.keys.gate(gateId), JSON.stringify(answers), by, at, commentId)) as
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
      (await this.redis.escRestoreGate(
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
   * Has the next openGateRepos count the open gates afresh: a full reconciliation's mark, so a count
   * a replica of an earlier version left wrong (it opens and closes gates without counting them,
   * while a rolling upgrade runs both) is put right at least daily.
   */
  async recountOpenGateRepos(): Promise<void> {
    await this.redis.hdel(this.keys.openGateRepos(), OPEN_REPOS_BUILT);
  }
}
