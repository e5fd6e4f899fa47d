import { createHash } from "node:crypto";
import { cleanHumanText, type StrippedCounts } from "../protocol/humanText.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";

/** Below this many hidden characters a reply is never called "mostly hidden" (a stray zero-width space is no news). */
const MIN_HIDDEN_CHARS = 20;
const QUOTED_LINE = /^[ \t]*>/;

export interface HiddenContentReport {
  stripped: StrippedCounts;
  hiddenChars: number;
  visibleChars: number;
  mostlyHidden: boolean;
}

/**
 * Measures what a reply carried that nobody sees on the issue. Quoted lines are left out: they
 * are someone else's words (and never an answer), so a reply quoting our ask is not "hidden".
 */
export function measureHiddenContent(body: string): HiddenContentReport {
  const own = body
    .split(/\r\n|\r|\n/)
    .filter((line) => !QUOTED_LINE.test(line))
    .join("\n");
  const { text, stripped, hiddenChars } = cleanHumanText(own);
  const visibleChars = text.replace(/\s+/g, "").length;
  return { stripped, hiddenChars, visibleChars, mostlyHidden: hiddenChars >= MIN_HIDDEN_CHARS && hiddenChars > visibleChars };
}

/** What reporting hidden content touches: the log, the once-per-text mark, the issue's feedback. */
export type HiddenContentPorts = FeedbackPorts & { log: Pick<Services["log"], "info" | "warn">; commentMarks: Pick<Services["commentMarks"], "firstTime"> };

/**
 * Logs what was stripped from a human's reply before it could reach an agent and, when most of the
 * reply was hidden content, says so on the issue: the human may not know their reply carried it.
 */
export async function reportHiddenContent(services: HiddenContentPorts, event: CommentEvent, body: string): Promise<HiddenContentReport> {
  const report = measureHiddenContent(body);
  const total = (Object.values(report.stripped) as number[]).reduce((sum, n) => sum + n, 0);
  if (total === 0) return report;
  const where = { repo: event.repo, issue: event.issue.number, comment: event.comment.id, by: event.comment.author.login };
  const counts = { ...report.stripped, hiddenChars: report.hiddenChars, visibleChars: report.visibleChars };
  if (!report.mostlyHidden) {
    services.log.info({ ...where, stripped: counts }, "hidden content stripped from a reply");
    return report;
  }
  services.log.warn({ ...where, stripped: counts }, "a reply was mostly hidden content; only its visible text is used");
  // Once per comment text: a redelivery, a replay by reconciliation or a retried job says nothing new.
  const digest = createHash("sha256").update(body).digest("hex").slice(0, 16);
  if (!(await services.commentMarks.firstTime(`hidden:${event.repo.toLowerCase()}#${event.issue.number}:${event.comment.id}:${digest}`))) return report;
  const parts = [
    report.stripped.htmlComments && `${report.stripped.htmlComments} HTML comment(s)`,
    report.stripped.hiddenHtml && `${report.stripped.hiddenHtml} hidden element(s)`,
    report.stripped.invisible && `${report.stripped.invisible} invisible character(s)`,
    report.stripped.imageAlt && `${report.stripped.imageAlt} image alt text(s)`,
  ].filter(Boolean);
  await sendFeedback(services, targetOf(event), {
    ops: [
      {
        type: "comment",
        body: `@${event.comment.author.login} most of your comment is content that does not show on the issue (${parts.join(", ")}). It was removed: only the text visible here reaches the agent.`,
      },
    ],
    key: `hidden-${event.comment.id}-${digest}`,
  });
  return report;
}
