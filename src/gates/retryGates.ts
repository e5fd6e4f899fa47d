import type { Gate } from "../domain.js";
import { newAskId, renderAskComment, validateAsk } from "../protocol/ask.js";
import { sendFeedback, type FeedbackPorts, type IssueTarget } from "../status/feedback.js";

/** Gates the app itself raises when a retry limit runs out (attempts or rounds); answering "retry" grants another run. */
export const RETRY_GATE_KINDS = ["attempts_exhausted", "rounds_exhausted"] as const;
export type RetryGateKind = (typeof RETRY_GATE_KINDS)[number];
export const RETRY = "retry";
export const GIVE_UP = "give up";

export function isRetryGate(gate: Gate): boolean {
  return (RETRY_GATE_KINDS as readonly string[]).includes(gate.ask.kind);
}

/** True when the human chose to run again (the option "retry", or a reply starting with it). */
export function choseRetry(gate: Gate): boolean {
  const answer = gate.answers[0];
  return (answer?.option ?? answer?.text ?? "").trim().toLowerCase() === RETRY;
}

/**
 * Posts the app's own ask comment for an exhausted retry limit. It arrives back by webhook from the
 * App's bot account and opens a gate like an agent's ask, so the same path answers it.
 */
export async function raiseRetryGate(
  services: FeedbackPorts,
  target: IssueTarget,
  kind: RetryGateKind,
  question: string,
  context: string,
  round: number,
): Promise<void> {
  const ask = validateAsk({ v: 1, id: newAskId(), kind, round, questions: [{ text: question, options: [RETRY, GIVE_UP] }], context });
  await sendFeedback(services, target, {
    ops: [{ type: "comment", body: renderAskComment(ask) }],
    line: `${kind.replace("_", " ")}: asking a human whether to retry`,
    key: `${kind}-${target.repo}-${target.issue}-${round}`,
  });
}
