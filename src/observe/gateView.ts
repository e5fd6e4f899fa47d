import { APPROVAL_KIND, type Gate, type Vote } from "../domain.js";
import type { GateRecords } from "../store/gateRecords.js";
import type { IssueRecords } from "../store/issueRecords.js";
import { answererViews, groupByAnswerer, matchesAnswerer, type AnswererView, type InboxGroup } from "./inbox.js";
import { approvalView, type ApprovalView } from "./approvalView.js";
import { questionTimeout } from "../protocol/ask.js";

/**
 * What every surface (`escalate status`, the status page, its JSON API) shows of an open gate.
 * Times are ISO strings plus whole seconds, so the JSON is exact and readable at once.
 */
export interface QuestionView {
  /** 1-based, as the human refers to it in a reply. */
  number: number;
  text: string;
  options: string[];
  default: string | null;
  /** The effective timeout: the question's own, else the ask's. */
  timeoutSeconds: number | null;
  deadline: string | null;
  /** An answer already recorded for this question (a partial reply to several questions). */
  answer: { text: string; option: string | null; by: string } | null;
}

export interface GateView {
  id: string;
  repo: string;
  issue: number;
  title: string | null;
  kind: string;
  round: number;
  state: string;
  askedBy: string;
  askedAt: string;
  ageSeconds: number;
  context: string | null;
  questions: QuestionView[];
  /** The earliest deadline of a still unanswered question; null when none has a timeout. */
  deadline: string | null;
  /** Seconds until `deadline`, negative once it has passed; null without a deadline. */
  timeLeftSeconds: number | null;
  /** When the repository's reminder ladder ran out without an answer; null while it has not. */
  overdueSince: string | null;
  /** The ask comment on GitHub. */
  url: string;
  issueUrl: string;
  /** The repository paths the ask is about (`escalate ask --path`). */
  paths: string[];
  /** Who can answer, as recorded when the gate opened (plus the issue's assignees under the permission rule). */
  answerers: AnswererView[];
  /** An approval gate's tally: approvals needed and given, by whom, and who it waits for; null on other gates. */
  approval: ApprovalView | null;
}

export interface GateCounts {
  open: number;
  /** Open with a timeout still ahead. */
  waiting: number;
  /** Open past its timeout (the default or reminder is due), or past the end of its reminder ladder. */
  overdue: number;
  /** Open without any timeout. */
  noTimeout: number;
  /** Open with some of several questions answered. */
  partial: number;
}

export interface OpenGatesReport {
  generatedAt: string;
  gates: GateView[];
  counts: GateCounts;
  /** With `by: "answerer"`: the inbox, every open gate under each who can answer it. */
  byAnswerer?: InboxGroup[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** `votes`: an approval gate's votes so far (the store's record). */
export function viewGate(gate: Gate, now: number, title?: string, assignees: readonly string[] = [], votes: readonly Vote[] = []): GateView {
  const answerers = answererViews(gate, assignees);
  const answered = new Map(gate.answers.map((a) => [a.question, a]));
  const questions = gate.ask.questions.map((question, index): QuestionView => {
    const timeout = questionTimeout(gate.ask, question) ?? null;
    const answer = answered.get(index);
    return {
      number: index + 1,
      text: question.text,
      options: [...question.options],
      default: question.default ?? null,
      timeoutSeconds: timeout,
      deadline: timeout === null ? null : iso(gate.askedAt + timeout * 1000),
      answer: answer ? { text: answer.text, option: answer.option ?? null, by: answer.by } : null,
    };
  });
  const deadlines = questions.filter((q) => q.answer === null && q.timeoutSeconds !== null).map((q) => gate.askedAt + q.timeoutSeconds! * 1000);
  const deadline = deadlines.length > 0 ? Math.min(...deadlines) : undefined;
  return {
    id: gate.id,
    repo: gate.repo,
    issue: gate.issue,
    title: title || null,
    kind: gate.ask.kind,
    round: gate.round,
    state: gate.state,
    askedBy: gate.askedBy,
    askedAt: iso(gate.askedAt),
    ageSeconds: Math.max(0, Math.floor((now - gate.askedAt) / 1000)),
    context: gate.ask.context ?? null,
    questions,
    deadline: deadline === undefined ? null : iso(deadline),
    timeLeftSeconds: deadline === undefined ? null : Math.floor((deadline - now) / 1000),
    overdueSince: gate.overdueAt === undefined ? null : iso(gate.overdueAt),
    url: gate.askUrl,
    issueUrl: issueUrlOf(gate),
    paths: [...(gate.ask.paths ?? [])],
    answerers,
    approval: gate.ask.kind === APPROVAL_KIND ? approvalView(gate, votes, answerers) : null,
  };
}

/** The issue's page: the ask comment's URL without its #issuecomment anchor. */
function issueUrlOf(gate: Gate): string {
  const hash = gate.askUrl.indexOf("#");
  return hash >= 0 ? gate.askUrl.slice(0, hash) : gate.askUrl;
}

export function countGates(gates: GateView[]): GateCounts {
  const counts: GateCounts = { open: gates.length, waiting: 0, overdue: 0, noTimeout: 0, partial: 0 };
  for (const gate of gates) {
    if (gate.overdueSince !== null) counts.overdue++;
    else if (gate.timeLeftSeconds === null) counts.noTimeout++;
    else if (gate.timeLeftSeconds < 0) counts.overdue++;
    else counts.waiting++;
    if (gate.questions.some((q) => q.answer !== null)) counts.partial++;
  }
  return counts;
}

export interface ReportOptions {
  /** Only this repository (case-insensitive). */
  repo?: string;
  now?: number;
  /** "answerer" adds the inbox (`byAnswerer`). */
  by?: "repo" | "answerer";
  /** Only gates these logins or org/teams can answer, and only their groups of the inbox. */
  answerers?: readonly string[];
}

/**
 * Reads the open gates (oldest first) with their issues' titles and assignees, from Redis only:
 * who can answer was recorded on each gate when it opened, so no view costs a GitHub call.
 */
export async function openGatesReport(
  store: { gates: Pick<GateRecords, "openGates" | "votes">; issues: Pick<IssueRecords, "getIssue"> },
  options: ReportOptions = {},
): Promise<OpenGatesReport> {
  const now = options.now ?? Date.now();
  let gates = await store.gates.openGates();
  if (options.repo) {
    const wanted = options.repo.toLowerCase();
    gates = gates.filter((g) => g.repo.toLowerCase() === wanted);
  }
  const issues = new Map<string, { title: string; assignees: string[] }>();
  await Promise.all(
    [...new Map(gates.map((g) => [`${g.repo.toLowerCase()}#${g.issue}`, g])).entries()].map(async ([key, g]) => {
      const issue = await store.issues.getIssue({ repo: g.repo, issue: g.issue });
      if (issue) issues.set(key, { title: issue.title, assignees: issue.assignees });
    }),
  );
  const votes = new Map(await Promise.all(gates.filter((g) => g.ask.kind === APPROVAL_KIND).map(async (g) => [g.id, await store.gates.votes(g.id)] as const)));
  let views = gates.map((g) => {
    const issue = issues.get(`${g.repo.toLowerCase()}#${g.issue}`);
    return viewGate(g, now, issue?.title, issue?.assignees, votes.get(g.id));
  });
  const wanted = options.answerers ?? [];
  if (wanted.length > 0) views = views.filter((view) => view.answerers.some((a) => matchesAnswerer(a, wanted)));
  const report: OpenGatesReport = { generatedAt: iso(now), gates: views, counts: countGates(views) };
  if (options.by === "answerer" || wanted.length > 0) report.byAnswerer = groupByAnswerer(views, wanted);
  return report;
}
