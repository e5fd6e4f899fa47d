import type { ApprovalPolicy, Gate, Vote } from "../domain.js";
import { tally } from "../protocol/approval.js";
import { answererText, type AnswererView } from "./inbox.js";

export interface VoteView {
  login: string;
  at: string;
  note: string | null;
}

/** An open approval gate's tally, as the status page and its JSON show it. */
export interface ApprovalView {
  required: number;
  policy: ApprovalPolicy;
  /** False on a gate opened before its rule was recorded: `required` is the ask's own count, and the repository may require more. */
  recorded: boolean;
  /** One vote per person (their newest), oldest first. */
  approvals: VoteView[];
  denials: VoteView[];
  /** Who can still approve: who can answer the gate, less the people who have voted. */
  waitingFor: AnswererView[];
  /** "1 of 2 approvals: @alice; waiting for 1 more from anyone with write access". */
  summary: string;
}

const voteView = (v: Vote): VoteView => ({ login: v.login, at: new Date(v.at).toISOString(), note: v.note ?? null });
const names = (votes: readonly VoteView[]) => (votes.length === 0 ? "none yet" : votes.map((v) => `@${v.login}`).join(", "));

/** The tally of an approval gate from its recorded rule (else the ask's count) and its votes so far. */
export function approvalView(gate: Gate, votes: readonly Vote[], answerers: readonly AnswererView[]): ApprovalView {
  const rule = gate.approvalRule ?? { required: gate.ask.approvers ?? 1, policy: "any-deny" as const };
  const counted = tally(votes, rule);
  const approvals = counted.approvals.map(voteView);
  const denials = counted.denials.map(voteView);
  const voted = new Set([...approvals, ...denials].map((v) => v.login.toLowerCase()));
  const waitingFor = answerers.filter((a) => a.kind !== "user" || !voted.has(a.name));
  const recorded = gate.approvalRule !== undefined;
  const left = Math.max(0, rule.required - approvals.length);
  const parts = [`${approvals.length} of ${recorded ? "" : "at least "}${rule.required} approval${rule.required === 1 ? "" : "s"}: ${names(approvals)}`];
  if (rule.policy === "majority" && denials.length > 0) parts.push(`${denials.length} of ${rule.required} denials: ${names(denials)}`);
  if (left > 0) parts.push(`waiting for ${left} more from ${waitingFor.length > 0 ? waitingFor.map(answererText).join(" · ") : "anyone who may answer"}`);
  return { required: rule.required, policy: rule.policy, recorded, approvals, denials, waitingFor, summary: parts.join("; ") };
}
