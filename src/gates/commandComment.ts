/**
 * What the command handlers share of the comment that ran one: the reply to it (its feedback keyed
 * by the comment), when it was written, and the issue's open gate it acts on.
 */
import type { Gate } from "../domain.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";

export const reply = (services: FeedbackPorts, event: CommentEvent, body: string, statusLine?: string) =>
  sendFeedback(services, targetOf(event), { ops: [{ type: "comment", body }], line: statusLine, key: `reply-${event.comment.id}` });

/** When the command was written; the delivery's arrival when GitHub's timestamp does not read. */
export const at = (event: CommentEvent) => Date.parse(event.comment.createdAt) || event.receivedAt;

export async function openGateOf(services: { gates: Pick<Services["gates"], "lastGate"> }, event: CommentEvent): Promise<Gate | undefined> {
  const gate = await services.gates.lastGate({ repo: event.repo, issue: event.issue.number });
  return gate?.state === "open" ? gate : undefined;
}
