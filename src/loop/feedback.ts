import type { FeedbackOp } from "../queue/jobs.js";
import type { Services } from "../services.js";

export interface IssueTarget {
  installationId: number;
  repo: string;
  issue: number;
}

/** The issue an inbound event is about, as a feedback target. */
export function targetOf(event: { installationId: number; repo: string; issue: { number: number } }): IssueTarget {
  return { installationId: event.installationId, repo: event.repo, issue: event.issue.number };
}

/**
 * Queues visible feedback for an issue: optional status-log line plus GitHub writes. The status
 * line is stored at once (so nothing is lost), the writes happen later on the feedback queue.
 */
export async function sendFeedback(services: Services, target: IssueTarget, ops: FeedbackOp[], statusLine?: string, key?: string): Promise<void> {
  const all = [...ops];
  let jobKey = key;
  if (statusLine !== undefined) {
    const seq = await services.store.appendStatusLine(target, `${new Date().toISOString().replace(/\.\d+Z$/, "Z")} · ${statusLine}`);
    all.push({ type: "status", seq });
    jobKey ??= `status-${seq}`;
  }
  if (all.length === 0) return;
  await services.queues.addFeedback(target, all, jobKey ?? `ops-${Date.now()}-${Math.random().toString(36).slice(2)}`);
}
