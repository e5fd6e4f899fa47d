import type { Answer, Question } from "../domain.js";
import { addressingOf, isReactionOnly } from "./addressing.js";
import { parseCommand } from "./commands.js";
import { visibleReplyText } from "./visibleText.js";

/*
 * Reads a human's reply to an open ask. The reply is an ordinary comment, so the format is
 * forgiving: a single question takes the whole comment; several questions take numbered lines.
 * What it reads (Answer) is in src/domain.ts.
 */

/**
 * How a reply was taken. Discussion answers nothing and is left alone; a reply that is not an
 * answer (a reaction, only mentions) answers nothing and earns its author a how-to.
 */
export type ReplyVerdict =
  | { kind: "answers" }
  | { kind: "discussion"; why: "/discuss" | "addressed to someone else" | "a question" }
  | { kind: "not an answer"; why: "a reaction" | "only mentions" };

export interface ParsedReply {
  answers: Answer[];
  unanswered: number[];
  visible: string;
  verdict: ReplyVerdict;
}

interface OptionMatch {
  option: string;
  optionIndex: number;
  note?: string;
}

// "1. x", "1) x", "1: x", "1 - x", "Q1: x". The separator must be followed by a space or the end of
// the line so that "1.5 hours" stays text.
const NUMBERED_LINE = /^Q?(\d+)\s*[.):-](?=\s|$)\s*(.*)$/i;
const ANSWER_COMMAND = /^\/answer\b/i;
const ANSWER_COMMAND_LINE = /^\/answer\p{P}*\s+(\d+)[.):-]?(?:\s+(.*))?$/iu;
const ANSWER_ARGS = /^(\d+)[.):-]?\s+(\S[\s\S]*)$/;
// An option number alone on its line, or followed by a separator: "2", "2. because", "2 - small",
// "**2**". "2.5" and "2-3 days" are not option numbers.
const OPTION_NUMBER = /^(\d+)(?:[^\S\n]*(?:\n|$)|[^\S\n]*[-.,:;)!*_~`\u2013\u2014]+(?=\s|$))/;
const LEADING_EMPHASIS = /^[*_~`]+/;
// What separates a note from its option: whitespace, separator punctuation and closing emphasis;
// not "(" or quotes, which belong to the note.
const NOTE_SEPARATOR = /^[\s.,:;!?)\]*_~`\-\u2013\u2014]+/;
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]/u;
const WORD_BEFORE = /[\p{L}\p{M}\p{N}]$/u;
// "Option 2", "option #2", "(2)": an option's number said as such. "#2" alone is an issue reference on GitHub.
const OPTION_FORM = /^(?:option\s*#?\s*(\d+)|\((\d+)\))(?![\p{L}\p{N}]|[.,]\d)/iu;
const ENDS_AS_QUESTION = /[?\uFF1F]$/;

/**
 * Reads a reply. `appNames` are the names the app is mentioned by (src/protocol/addressing.ts), so
 * that "@app 2" answers; without them a reply that starts with any mention is addressed to someone else.
 */
export function parseReply(body: string, questions: readonly Question[], appNames: readonly string[] = []): ParsedReply {
  const visible = visibleReplyText(body);
  const nothing = (verdict: ReplyVerdict): ParsedReply => ({ answers: [], unanswered: questions.map((_, index) => index), visible, verdict });
  if (parseCommand(visible)?.name === "discuss") return nothing({ kind: "discussion", why: "/discuss" });
  const addressing = addressingOf(visible, appNames);
  if (addressing.to === "someone else") return nothing({ kind: "discussion", why: "addressed to someone else" });
  if (addressing.to === "mentions only") return nothing({ kind: "not an answer", why: "only mentions" });
  const hasOptions = questions.some((question) => question.options.length > 0);
  // A thumbs-up may well answer a yes/no question without options; it chooses none of a list.
  if (hasOptions && isReactionOnly(addressing.text)) return nothing({ kind: "not an answer", why: "a reaction" });
  const texts = answerTexts(addressing.text, questions.length);
  const answers: Answer[] = [];
  const unanswered: number[] = [];
  questions.forEach((question, index) => {
    const text = texts.get(index);
    if (text === undefined || text === "") {
      unanswered.push(index);
      return;
    }
    answers.push({ question: index, text, ...matchOption(text, question) });
  });
  // A reply that chooses no option and asks something is a question back, not an answer.
  const choosesNothing = answers.length > 0 && answers.every((answer) => answer.option === undefined && questions[answer.question]!.options.length > 0);
  if (choosesNothing && ENDS_AS_QUESTION.test(addressing.text)) return nothing({ kind: "discussion", why: "a question" });
  return { answers, unanswered, visible, verdict: { kind: "answers" } };
}

/** The answer text per 0-based question index. */
function answerTexts(visible: string, count: number): Map<number, string> {
  if (visible === "" || count === 0) return new Map();
  const command = parseCommand(visible);
  if (command !== undefined && command.name !== "answer") return new Map();
  if (count > 1) return numberedAnswers(visible, count);
  if (command === undefined) return new Map([[0, visible]]);
  const args = ANSWER_ARGS.exec(command.args);
  // "/answer yes" names no question, which is unambiguous when there is only one.
  if (args === null) return new Map([[0, command.args]]);
  return Number(args[1]) === 1 ? new Map([[0, args[2]!]]) : new Map<number, string>();
}

/**
 * Several questions: a numbered line or an "/answer N" line starts the answer to question N and
 * the unnumbered lines after it continue that answer. Without any numbered line the reply is
 * ambiguous and answers nothing.
 */
function numberedAnswers(visible: string, count: number): Map<number, string> {
  const parts = new Map<number, string[]>();
  let current: number | undefined;
  for (const line of visible.split("\n")) {
    const start = answerStart(line);
    if (start === undefined) {
      if (current !== undefined) parts.get(current)!.push(line);
      continue;
    }
    // An out-of-range number starts an answer to no question: it and its continuation are dropped.
    current = start.question >= 1 && start.question <= count ? start.question - 1 : undefined;
    if (current !== undefined) parts.set(current, [start.text]);
  }
  return new Map([...parts].map(([index, lines]) => [index, lines.join("\n").trim()]));
}

/** The 1-based question number a line starts an answer to; 0 for an "/answer" line without one. */
function answerStart(line: string): { question: number; text: string } | undefined {
  if (ANSWER_COMMAND.test(line)) {
    const match = ANSWER_COMMAND_LINE.exec(line);
    return match ? { question: Number(match[1]), text: match[2] ?? "" } : { question: 0, text: "" };
  }
  const match = NUMBERED_LINE.exec(line);
  return match ? { question: Number(match[1]), text: match[2]! } : undefined;
}

/**
 * Finds the option an answer selects, with confidence: the answer starts with the option's 1-based
 * number, its label (longest label wins) or "Option N" / "(N)", optionally followed by a note, and
 * the note names no other option ("SQLite or Postgres, whichever" is ambiguous and stays free
 * text). Emphasis around the answer ("**SQLite**") is ignored. A label named later in prose ("I
 * think SQLite") selects nothing: the text is passed on as it is, and the acknowledgement says no
 * option was chosen.
 */
export function matchOption(text: string, question: Question): OptionMatch | undefined {
  if (question.options.length === 0) return undefined;
  const trimmed = text.trim();
  for (const candidate of new Set([trimmed, trimmed.replace(LEADING_EMPHASIS, "")])) {
    const match = byNumber(candidate, question.options) ?? byLabel(candidate, question.options) ?? byOptionForm(candidate, question.options);
    if (match === undefined) continue;
    const others = optionsNamed(match.note ?? "", question.options).filter((index) => index !== match.optionIndex);
    return others.length === 0 ? match : undefined;
  }
  return undefined;
}

/**
 * The 0-based indexes of the options whose label appears in `text` as a whole word, in any case. A
 * label inside a longer label that also appears ("Go" in "Go modules") does not count on its own.
 */
export function optionsNamed(text: string, options: readonly string[]): number[] {
  const lower = text.toLowerCase();
  const spans: Array<{ index: number; start: number; end: number }> = [];
  options.forEach((option, index) => {
    const label = option.toLowerCase();
    if (label === "") return;
    for (let at = lower.indexOf(label); at >= 0; at = lower.indexOf(label, at + 1)) {
      const end = at + label.length;
      if (WORD_CHAR.test(lower.slice(end)) || WORD_BEFORE.test(lower.slice(0, at))) continue;
      spans.push({ index, start: at, end });
    }
  });
  const inside = (a: { start: number; end: number }, b: { start: number; end: number }) =>
    b.start <= a.start && a.end <= b.end && b.end - b.start > a.end - a.start;
  const named = spans.filter((span) => !spans.some((other) => inside(span, other))).map((span) => span.index);
  return [...new Set(named)].sort((a, b) => a - b);
}

function byNumber(text: string, options: readonly string[]): OptionMatch | undefined {
  const match = OPTION_NUMBER.exec(text);
  if (match === null) return undefined;
  const optionIndex = Number(match[1]) - 1;
  const option = options[optionIndex];
  if (option === undefined) return undefined;
  return withNote({ option, optionIndex }, text.slice(match[0].length));
}

/** "Option 2" and "(2)": the number is delimited by the form itself, so "Option 2 because…" chooses too. */
function byOptionForm(text: string, options: readonly string[]): OptionMatch | undefined {
  const match = OPTION_FORM.exec(text);
  if (match === null) return undefined;
  const optionIndex = Number(match[1] ?? match[2]) - 1;
  const option = options[optionIndex];
  if (option === undefined) return undefined;
  return withNote({ option, optionIndex }, text.slice(match[0].length));
}

function byLabel(text: string, options: readonly string[]): OptionMatch | undefined {
  let best: OptionMatch | undefined;
  let bestRest = "";
  options.forEach((option, optionIndex) => {
    if (option.length === 0 || (best !== undefined && option.length <= best.option.length)) return;
    if (text.slice(0, option.length).toLowerCase() !== option.toLowerCase()) return;
    const rest = text.slice(option.length);
    // "Go" must not select for "Golang".
    if (WORD_CHAR.test(rest)) return;
    best = { option, optionIndex };
    bestRest = rest;
  });
  return best === undefined ? undefined : withNote(best, bestRest);
}

function withNote(match: OptionMatch, rest: string): OptionMatch {
  const note = rest.replace(NOTE_SEPARATOR, "").trim();
  return note === "" ? match : { ...match, note };
}
