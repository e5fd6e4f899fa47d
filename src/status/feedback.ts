import type { FeedbackOp } from "../payloads.js";
import type { Services } from "../services/services.js";
import type { IssueTarget } from "./feedbackLanes.js";

export type { IssueTarget } from "./feedbackLanes.js";

/** The issue an inbound event is about, as a feedback target. */
export function targetOf(event: { installationId: number; repo: string; issue: { number: number } }): IssueTarget {
  return { installationId: event.installationId, repo: event.repo, issue: event.issue.number };
}

/** What sendFeedback writes through: the issue's status log, and the feedback queue. */
export interface FeedbackPorts {
  config: Pick<Services["config"], "statusDebounceMs">;
  statusLog: Pick<Services["statusLog"], "appendStatusLine" | "markStatusPending">;
  issues: Pick<Services["issues"], "getIssue">;
  queues: { feedback: Pick<Services["queues"]["feedback"], "add"> };
}

/** What one piece of feedback holds: GitHub writes, a status-log line, or both. */
export interface FeedbackRequest {
  /** The writes, performed in the order queued for the issue (src/queue/feedbackWorker.ts). */
  ops?: FeedbackOp[];
  /** A line for the issue's status log, stored at once. */
  line?: string;
  /** Names the writes' entry, so queueing the same feedback twice (a retried step) writes once. */
  key?: string;
  /**
   * The status line repeats what the issue already shows (the label, the agent's own output): it is
   * logged and shown by the next render of the status comment, but schedules no render of its own.
   * "unless-shown": quiet only while the issue has no status comment; one that exists is kept
   * current (a round it shows as started is not left looking as if it still ran).
   */
  quiet?: boolean | "unless-shown";
  /** Hold the writes back this long (they still keep their place in the issue's order). */
  delayMs?: number;
}

/**
 * Queues visible feedback for an issue: optional status-log line plus GitHub writes. The status
 * line is stored at once (so nothing is lost), the writes happen later from the feedback queue, in
 * the order they were queued for the issue. The status comment is not edited per line: a render is
 * scheduled `STATUS_DEBOUNCE` after the first line and shows every line added meanwhile, so quick
 * transitions cost one edit; quiet lines (the happy path's) ride along with the next render.
 */
export async function sendFeedback(services: FeedbackPorts, target: IssueTarget, request: FeedbackRequest): Promise<void> {
  const { ops = [], line, key, ...options } = request;
  let seq: number | undefined;
  if (line !== undefined) {
    seq = await services.statusLog.appendStatusLine(target, `${new Date().toISOString().replace(/\.\d+Z$/, "Z")} · ${line}`);
    const quiet = options.quiet === "unless-shown" ? !(await services.issues.getIssue(target))?.statusCommentId : options.quiet;
    if (!quiet) await scheduleStatusRender(services, target, seq);
  }
  if (ops.length === 0) return;
  const entryKey = key ?? (seq !== undefined ? `line-${seq}` : `ops-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  await services.queues.feedback.add(target, ops, entryKey, { delayMs: options.delayMs, fresh: key === undefined });
}

/**
 * One render per burst of lines: the first line schedules it, the lines added before it runs join
 * it. In the issue's render lane: its debounce does not hold the issue's other writes back.
 */
async function scheduleStatusRender(services: Pick<FeedbackPorts, "config" | "queues" | "statusLog">, target: IssueTarget, seq: number): Promise<void> {
  const debounceMs = services.config.statusDebounceMs;
  if (!(await services.statusLog.markStatusPending(target, debounceMs + 60_000))) return;
  await services.queues.feedback.add(target, [{ type: "status", seq }], `status-${seq}`, { delayMs: debounceMs, lane: "render" });
}
