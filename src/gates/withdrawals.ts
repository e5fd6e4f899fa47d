import type { ReviseResult } from "../store/gateRecords.js";
import type { Services } from "../services/services.js";
import { sendFeedback, type FeedbackPorts, type IssueTarget } from "../status/feedback.js";

/** What became of the gate after an answer was withdrawn, for the status line (never the text). */
export function withdrawalLine(gateId: string, revised: Exclude<ReviseResult, { outcome: "missing" }>, what: string): string {
  if (revised.outcome === "reopened") {
    return revised.state === "open"
      ? `${what} before the agent resumed; the gate is open again and takes the next answer`
      : `${what} before the agent resumed; a newer question stands, so gate ${gateId} is superseded`;
  }
  if (revised.state === "open") return `${what}; that question waits for an answer again`;
  return `${what}; later rounds are not told its text`;
}

/** The app's feedback entries that quote a reply's text: its echo, and the "Recorded 1 of 2" comment. */
export function echoKeys(gateId: string, commentId: number): string[] {
  return [`echo-${commentId}`, `partial-${gateId}-${commentId}`];
}

/** What holds a withdrawn text: the deliveries' queue and the feedback queue. */
export interface ForgetPorts {
  queues: Pick<Services["queues"], "forgetDelivery"> & { feedback: Pick<Services["queues"]["feedback"], "remove"> };
  log: Pick<Services["log"], "warn">;
}

/**
 * Removes the queued work that still holds a withdrawn or replaced text: the webhook deliveries that
 * brought it (their jobs keep what they were about, not the text) and the app's echoes of it (an echo not yet
 * posted is then never posted). An echo being written this moment is deleted too, and is gone once
 * its write ends (src/status/feedbackOutbox.ts). A delivery waiting or due for a retry is then
 * dropped unhandled (src/queue/inboundQueue.ts).
 */
export async function forgetJobs(
  services: ForgetPorts,
  target: IssueTarget,
  deliveryIds: readonly (string | undefined)[],
  feedbackKeys: readonly string[],
): Promise<void> {
  const removed = async (removal: () => Promise<number>, id: string): Promise<void> => {
    try {
      await removal();
    } catch (error) {
      services.log.warn({ err: error, job: id }, "could not remove queued work holding withdrawn text");
    }
  };
  const inbound = [...new Set(deliveryIds.filter((d): d is string => d !== undefined))].map((d) => removed(() => services.queues.forgetDelivery(d), d));
  const feedback = feedbackKeys.map((key) => removed(() => services.queues.feedback.remove(target, key), key));
  await Promise.all([...inbound, ...feedback]);
}

/**
 * The app's comments on GitHub that quote reply `commentId` (its echo, a "Recorded 1 of 2") lose
 * the quote: the reply was deleted, or edited (the words shown were the old ones). No mention, so
 * nobody is notified again.
 */
export async function redactEchoes(services: FeedbackPorts, target: IssueTarget, commentId: number, why: "deleted" | "edited"): Promise<void> {
  const body =
    why === "deleted"
      ? "📝 The reply this comment quoted was deleted; its words are no longer shown here."
      : "📝 The reply this comment quoted was edited; the old words are no longer shown here.";
  await sendFeedback(services, target, { ops: [{ type: "redactEcho", of: commentId, body }], key: `redact-${commentId}-${Date.now()}` });
}
