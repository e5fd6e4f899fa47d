/**
 * A gate Redis lost, rebuilt from its ask comment and what the status record (or the timeline)
 * says became of it: the store's gate record, ready to restore.
 */
import type { Ask, Gate, RecordedAnswer, Withdrawal } from "../domain.js";
import { issueCommentIdOf } from "./deletedComments.js";
import type { ReplySnapshot } from "./reviewReplies.js";

/** A gate as the status record keeps it: its answers by URL, not by comment id. */
export interface KnownGate {
  id: string;
  state: string;
  round: number;
  answers: Omit<RecordedAnswer, "commentId">[];
  answeredBy?: string;
  answeredAt?: number;
  answerCommentId?: number;
  reason?: string;
  withdrawn?: Withdrawal[];
}

export function settledGate(known: KnownGate, comment: ReplySnapshot, ask: Ask, installationId: number, repo: string, issue: number): Gate {
  return {
    id: known.id,
    repo,
    issue,
    installationId,
    round: known.round,
    ask,
    askedAt: Date.parse(comment.created_at),
    askedBy: comment.user?.login ?? "",
    askUrl: comment.html_url,
    state: known.state as Gate["state"],
    // The status comment keeps each answer's URL, not its comment id: a later deletion must find it.
    answers: known.answers.map((a) => ({ ...a, ...(issueCommentIdOf(a.url) !== undefined ? { commentId: issueCommentIdOf(a.url) } : {}) })),
    answeredBy: known.answeredBy,
    answeredAt: known.answeredAt,
    answerCommentId: known.answerCommentId,
    ...(known.reason ? { closedReason: known.reason } : {}),
    ...(known.withdrawn?.length ? { withdrawn: known.withdrawn } : {}),
  };
}
