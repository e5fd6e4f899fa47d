import type { InboundEvent } from "../payloads.js";

/** What the echo check reads: the app's own record of the awaiting label (IssueRecords, src/store/issueRecords.ts). */
export interface LabelRecord {
  awaitingLabel(ref: { repo: string; issue: number }): Promise<"on" | "off" | "leaving" | undefined>;
}

/**
 * Whether a delivery is the webhook of a write the app can prove it made itself, so queueing it
 * would only cost a job that the loop then ignores. Only a label taken off under the bot's name is
 * checked: the app records "leaving" before it takes the awaiting label off and "off" after, and
 * labelTakenOff (src/gates/labelTakenOff.ts) ignores every such event while that record stands. Any
 * other record ("on", or none) means the app did not take it off, and the event is queued as before,
 * so a label the agent takes off under the bot's name is still put back.
 */
export async function isOwnLabelRemoval(event: InboundEvent, labels: LabelRecord): Promise<boolean> {
  if (event.kind !== "unlabeled") return false;
  const recorded = await labels.awaitingLabel({ repo: event.repo, issue: event.issue.number });
  return recorded === "off" || recorded === "leaving";
}
