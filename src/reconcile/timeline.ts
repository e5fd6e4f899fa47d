import { APPROVAL_KIND, type ApprovalRule, type Ask, type Vote } from "../domain.js";
import { approvalAnswer } from "../gates/approvalAnswer.js";
import { isIssueComment } from "../github/replyIds.js";
import { appMentionNames } from "../protocol/addressing.js";
import { readVote, tally } from "../protocol/approval.js";
import { parseCommand } from "../protocol/commands.js";
import { parseReply } from "../protocol/reply.js";
import type { StatusState } from "../status/statusComment.js";
import type { ReplyPlace } from "../payloads.js";

type GateRecord = StatusState["gates"][number];

/** An issue comment as the REST API lists it, or a pull request's review or line comment in its shape. */
export interface TimelineComment {
  id: number;
  body?: string;
  html_url: string;
  created_at: string;
  user: { login: string; type: string } | null;
  in?: ReplyPlace;
}

/** A `labeled` / `unlabeled` entry of the issue's events (GET /repos/{owner}/{repo}/issues/{n}/events). */
export interface LabelEvent {
  event: string;
  label?: { name: string } | null;
  actor?: { login: string } | null;
  created_at: string;
}

export interface TimelineInput {
  /** The issue's ask comments (by the app or a configured agent), oldest first. */
  asks: ReadonlyArray<{ comment: TimelineComment; ask: Ask }>;
  comments: readonly TimelineComment[];
  events: readonly LabelEvent[];
  /** The app's bot login. */
  appLogin: string;
  awaitingLabel: string;
  /** Whose replies answer (a permitted human, not a bot or agent). */
  isAnswerer: (comment: TimelineComment) => boolean;
  /** Gates the app's signed status record holds answered (all questions), though not as settled. */
  recorded?: (gateId: string) => boolean;
  /** What an approval ask needs (the repository's settings apply); without it, the ask's own count and any-deny. */
  approvalRule?: (ask: Ask) => ApprovalRule;
}

/** How far a gate got; a record never moves a gate back. */
const SETTLED = new Set(["resumed", "superseded", "cancelled"]);

/**
 * The gates the issue's timeline shows resumed, for the happy path that writes no status comment
 * (README, "GitHub's limits"): an ask followed by an ask of a later round was resumed (that round's
 * agent asked); the newest ask was resumed, and its round ran to its end, once the awaiting label
 * came off under the app's name after it (the app does so when that round ends, not when it starts,
 * so a round that died with its app is not taken for finished) and humans had answered it before (or
 * the app's signed status record holds it answered). The answers are read again from the replies in
 * between, as the app read them: merged by question, until every question had one.
 *
 * Asks and label changes under the app's name may be the agent's (it shares the App's bot identity),
 * so the timeline alone never answers for a human: a gate counts only when permitted humans answered
 * every question (or decided the approval); a default taken at a timeout is believed only from the
 * app's signed record (README, "Signed state").
 */
export function resumedOnTimeline(input: TimelineInput): GateRecord[] {
  const out: GateRecord[] = [];
  input.asks.forEach(({ comment, ask }, index) => {
    const askedAt = Date.parse(comment.created_at);
    const later = input.asks.slice(index + 1);
    let until: number | undefined;
    if (later.length > 0) {
      if (!later.some((l) => l.ask.round > ask.round)) return; // the same round asked again: superseded
      until = Date.parse(later[0]!.comment.created_at);
    } else {
      until = labelTakenOffAfter(input, askedAt);
      if (until === undefined) return;
    }
    const id = String(comment.id);
    const answered = answersBetween(input, ask, { askId: comment.id, nextAskId: later[0]?.comment.id, from: askedAt, until });
    // The newest ask: the label may have come off for another reason (Redis lost the gate while the
    // round before it ended, or the agent took it off); without the humans' answers it was not resumed.
    if (later.length === 0 && !answered) {
      if (input.recorded?.(id)) out.push({ id, state: "resumed", round: ask.round, answers: [] });
      return;
    }
    if (answered) out.push({ id, state: "resumed", round: ask.round, ...answered });
  });
  return out;
}

/**
 * GitHub's record of the gates: the status comment's, with the timeline's resumed gates for those
 * it holds no settled outcome of (none, or one a later round overtook before the next render).
 */
export function withTimeline(state: StatusState | undefined, resumed: readonly GateRecord[]): StatusState | undefined {
  if (resumed.length === 0) return state;
  const gates = new Map<string, GateRecord>((state?.gates ?? []).map((g) => [g.id, g]));
  for (const gate of resumed) {
    const known = gates.get(gate.id);
    if (!known || !SETTLED.has(known.state)) gates.set(gate.id, known?.answers.length ? { ...gate, ...pick(known), state: "resumed" } : gate);
  }
  const nextRound = Math.max(state?.nextRound ?? 0, ...resumed.map((g) => g.round + 2));
  return { ...(state ?? { v: 1 as const }), v: 1, nextRound, gates: [...gates.values()] };
}

function pick(known: GateRecord): Partial<GateRecord> {
  return { answers: known.answers, answeredBy: known.answeredBy, answeredAt: known.answeredAt, answerCommentId: known.answerCommentId };
}

/** When the app took the awaiting label off after `since`, unless something put it back on since. */
function labelTakenOffAfter(input: TimelineInput, since: number): number | undefined {
  const label = input.awaitingLabel.toLowerCase();
  const changes = input.events
    .filter((e) => (e.event === "labeled" || e.event === "unlabeled") && e.label?.name.toLowerCase() === label && Date.parse(e.created_at) >= since - 1000)
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const lastChange = changes.at(-1);
  if (lastChange?.event !== "unlabeled" || lastChange.actor?.login !== input.appLogin) return undefined;
  return Date.parse(lastChange.created_at);
}

/** Where an ask's replies are: after its comment, before the next ask's (or `until`, the label's coming off, for the newest). */
interface ReplyWindow {
  askId: number;
  nextAskId: number | undefined;
  from: number;
  until: number;
}

/**
 * Whether a reply is in the window. An issue comment by its id: ids grow with time in one sequence,
 * while timestamps have whole seconds, and the answer to one question is often written in the second
 * the next is asked. A review (ids of other sequences) by its time, with a second's slack.
 */
function inWindow(reply: TimelineComment, window: ReplyWindow): boolean {
  const at = Date.parse(reply.created_at);
  if (isIssueComment(reply.id)) return reply.id > window.askId && (window.nextAskId === undefined ? at <= window.until + 1000 : reply.id < window.nextAskId);
  return at >= window.from - 1000 && at <= window.until + 1000;
}

function answersBetween(input: TimelineInput, ask: Ask, window: ReplyWindow): Omit<GateRecord, "id" | "state" | "round"> | undefined {
  if (ask.kind === APPROVAL_KIND) return votesBetween(input, ask, window);
  const byQuestion = new Map<number, GateRecord["answers"][number]>();
  let last: TimelineComment | undefined;
  for (const reply of input.comments) {
    const at = Date.parse(reply.created_at);
    if (!inWindow(reply, window) || !reply.body || !input.isAnswerer(reply)) continue;
    const by = reply.user?.login ?? "ghost";
    const command = parseCommand(reply.body);
    if (command?.name === "defaults") {
      ask.questions.forEach((q, i) => {
        if (q.default !== undefined && !byQuestion.has(i))
          byQuestion.set(i, { ...answerOf(q, i, q.default), by, at, source: "human", url: reply.html_url, note: "accepted the default with /defaults" });
      });
    } else if (!command || command.name === "answer") {
      const about = reply.in?.kind === "reviewComment" ? { about: { path: reply.in.path, line: reply.in.line, side: reply.in.side } } : {};
      for (const answer of parseReply(reply.body, ask.questions, appMentionNames(input.appLogin)).answers)
        byQuestion.set(answer.question, { ...answer, by, at, source: "human", url: reply.html_url, ...about });
    } else {
      continue;
    }
    last = reply;
    if (byQuestion.size === ask.questions.length) break;
  }
  // Every question answered by a human, or nothing: defaults are taken at timeouts, which the signed record holds.
  if (last === undefined || byQuestion.size < ask.questions.length) return undefined;
  return {
    answers: [...byQuestion.values()].sort((a, b) => a.question - b.question),
    answeredBy: last.user?.login ?? "ghost",
    answeredAt: Date.parse(last.created_at),
    answerCommentId: last.id,
  };
}

/** An approval gate's outcome, counted again from the votes in between, as the app counted them. */
function votesBetween(input: TimelineInput, ask: Ask, window: ReplyWindow): Omit<GateRecord, "id" | "state" | "round"> | undefined {
  const rule = input.approvalRule?.(ask) ?? { required: ask.approvers ?? 1, policy: "any-deny" };
  const votes: Vote[] = [];
  for (const reply of input.comments) {
    const at = Date.parse(reply.created_at);
    if (!inWindow(reply, window) || !reply.body || !input.isAnswerer(reply)) continue;
    const cast = readVote(reply.body, appMentionNames(input.appLogin));
    if (!cast || cast === "discussion") continue;
    const vote: Vote = {
      login: reply.user?.login ?? "ghost",
      vote: cast.vote,
      at,
      commentId: reply.id,
      url: reply.html_url,
      ...(cast.note ? { note: cast.note } : {}),
    };
    votes.push(vote);
    const counted = tally(votes, rule);
    if (counted.outcome === undefined) continue;
    return {
      answers: [approvalAnswer({ ...counted, outcome: counted.outcome }, rule, vote)],
      answeredBy: vote.login,
      answeredAt: at,
      answerCommentId: reply.id,
    };
  }
  return undefined;
}

function answerOf(question: Ask["questions"][number], index: number, text: string): { question: number; text: string; option?: string; optionIndex?: number } {
  const optionIndex = question.options.indexOf(text);
  return { question: index, text, ...(optionIndex >= 0 ? { option: text, optionIndex } : {}) };
}
