import {
  AskSchema,
  type ApprovalRule,
  type Gate,
  type GateAnswerers,
  type GateState,
  type NewGate,
  type RecordedAnswer,
  type Vote,
  type Withdrawal,
} from "../domain.js";

/** The hash fields of a gate: the one place that maps a Gate to its Redis representation. */
export function gateFields(gate: NewGate & Partial<Gate>): Record<string, string> {
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

/** A gate read back from its hash (the inverse of gateFields). */
export function toGate(h: Record<string, string>): Gate {
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

/** An approval gate's votes read back from its votes hash (vote JSON per person), oldest first. */
export function toVotes(values: string[]): Vote[] {
  return values.map((v) => JSON.parse(v) as Vote).sort((a, b) => a.at - b.at || a.commentId - b.commentId);
}

/** A hash as a script returns it (HGETALL's flat field, value list). */
export function pairs(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}
