import { parseArgs } from "node:util";
import { formatDuration } from "../../protocol/duration.js";
import { describeIssues } from "../../errors.js";
import { openGatesReport, type OpenGatesReport, type QuestionView } from "../../observe/gateView.js";
import { InboxQuery, type InboxGroup } from "../../observe/inbox.js";
import { withStore } from "../store.js";
import { UsageError } from "../usage.js";

/** `escalate status [--json] [--repo OWNER/REPO] [--by answerer] [--answerer NAME]...`: the open gates, read from the app's Redis. */
export async function statusCommand(argv: string[], env: NodeJS.ProcessEnv, out: (text: string) => void, now = Date.now()): Promise<OpenGatesReport> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { json: { type: "boolean" }, repo: { type: "string" }, by: { type: "string" }, answerer: { type: "string", multiple: true } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  if (values.repo !== undefined && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(values.repo)) {
    throw new UsageError(`--repo must be OWNER/REPO (got ${JSON.stringify(values.repo)}).`);
  }
  const query = InboxQuery.safeParse({ by: values.by, answerers: values.answerer });
  if (!query.success)
    throw new UsageError(
      describeIssues(query.error.issues)
        .replace(/^by:/, "--by")
        .replace(/^answerers\.\d+:/, "--answerer"),
    );
  const report = await withStore(env, ({ store }) => openGatesReport(store, { repo: values.repo, now, by: query.data.by, answerers: query.data.answerers }));
  out(values.json ? JSON.stringify(report, null, 2) : report.byAnswerer ? renderInboxTable(report, report.byAnswerer) : renderStatusTable(report));
  return report;
}

/** "1d 2h", "5m", "45s": the two largest units, enough to compare ages at a glance. */
export function shortDuration(seconds: number): string {
  return formatDuration(Math.abs(seconds)).split(" ").slice(0, 2).join(" ");
}

function timeLeft(seconds: number | null): string {
  if (seconds === null) return "-";
  return seconds < 0 ? `overdue ${shortDuration(seconds)}` : shortDuration(seconds);
}

function questionLines(question: QuestionView, several: boolean, now: number): string[] {
  const lines: string[] = [];
  let head = several ? `Q${question.number}. ${question.text}` : question.text;
  if (several && question.deadline !== null && question.answer === null) {
    const left = Math.floor((Date.parse(question.deadline) - now) / 1000);
    head += `  (${left < 0 ? `overdue ${shortDuration(left)}` : `${shortDuration(left)} left`})`;
  }
  lines.push(head);
  if (question.options.length > 0) {
    lines.push(`    ${question.options.map((o, i) => `${i + 1}) ${o}${o === question.default ? " (default)" : ""}`).join("  ")}`);
  }
  if (question.default !== null && !question.options.includes(question.default)) lines.push(`    default: ${question.default}`);
  if (question.answer) lines.push(`    answered by @${question.answer.by}: ${question.answer.option ?? question.answer.text}`);
  return lines;
}

/** The terminal view: one row per gate, its questions indented below, then the counts. */
export function renderStatusTable(report: OpenGatesReport): string {
  const header = ["GATE", "ISSUE", "KIND", "AGE", "TIME LEFT", "LINK"];
  const rows = report.gates.map((g) => [
    g.id,
    `${g.repo}#${g.issue}`,
    g.kind,
    shortDuration(g.ageSeconds),
    g.overdueSince ? "overdue (reminders ran out)" : timeLeft(g.timeLeftSeconds),
    g.url,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  const indent = " ".repeat(widths[0]! + 2);
  const out: string[] = [];
  if (report.gates.length === 0) {
    out.push("No open gates.");
  } else {
    out.push(line(header));
    report.gates.forEach((gate, index) => {
      out.push(line(rows[index]!));
      if (gate.title) out.push(`${indent}"${gate.title}"`);
      if (gate.context) out.push(`${indent}${gate.context.replace(/\s*\n\s*/g, " ")}`);
      const several = gate.questions.length > 1;
      for (const question of gate.questions) for (const text of questionLines(question, several, Date.parse(report.generatedAt))) out.push(`${indent}${text}`);
    });
  }
  const c = report.counts;
  out.push("", `${c.open} open: ${c.waiting} waiting, ${c.overdue} overdue, ${c.noTimeout} without timeout, ${c.partial} partly answered`);
  return out.join("\n");
}

/**
 * The inbox as text: each who can answer, then their gates oldest first with how long each has
 * waited, why they can answer it, the issue and the question.
 */
export function renderInboxTable(report: OpenGatesReport, groups: InboxGroup[]): string {
  const out: string[] = [];
  if (groups.length === 0) out.push("No open gates waiting on anyone.");
  const entries = groups.flatMap((g) => g.gates);
  const ageWidth = Math.max(6, ...entries.map((e) => shortDuration(e.ageSeconds).length));
  const issueWidth = Math.max(...entries.map((e) => `${e.repo}#${e.issue}`.length), 5);
  const viaWidth = Math.max(...entries.map((e) => e.via.length), 3);
  for (const group of groups) {
    if (out.length > 0) out.push("");
    out.push(`${group.answerer.label} · ${group.count} waiting, oldest ${shortDuration(group.oldestAgeSeconds)}`);
    for (const entry of group.gates) {
      const about = entry.paths.length > 0 ? ` (${entry.paths.join(", ")})` : "";
      out.push(
        `  ${shortDuration(entry.ageSeconds).padEnd(ageWidth)}  ${`${entry.repo}#${entry.issue}`.padEnd(issueWidth)}  ${entry.via.padEnd(viaWidth)}  ${entry.url}`,
      );
      out.push(`  ${" ".repeat(ageWidth)}  ${entry.question}${about}`);
    }
  }
  const c = report.counts;
  out.push("", `${c.open} open: ${c.waiting} waiting, ${c.overdue} overdue, ${c.noTimeout} without timeout, ${c.partial} partly answered`);
  return out.join("\n");
}
