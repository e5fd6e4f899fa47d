import type { ApprovalRule, RecordedAnswer, Vote } from "../domain.js";
import type { Tally } from "../protocol/approval.js";

/**
 * The outcome a gate's votes reached, as its one answer: the text "approved" or "denied" (with the
 * deciding denial's note), who cast the deciding vote, and every counted vote.
 */
export function approvalAnswer(counted: Tally & { outcome: "approved" | "denied" }, rule: ApprovalRule, deciding: Vote): RecordedAnswer {
  return {
    question: 0,
    text: counted.outcome,
    ...(counted.outcome === "denied" && deciding.note ? { note: deciding.note } : {}),
    by: deciding.login,
    at: deciding.at,
    source: "human",
    commentId: deciding.commentId,
    ...(deciding.url ? { url: deciding.url } : {}),
    approval: {
      outcome: counted.outcome,
      required: rule.required,
      policy: rule.policy,
      votes: [...counted.approvals, ...counted.denials].sort((a, b) => a.at - b.at),
    },
  };
}
