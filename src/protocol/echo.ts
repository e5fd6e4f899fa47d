import type { Answer, Question } from "../domain.js";
import { optionsNamed } from "./reply.js";

/**
 * What the app understood of a reply, said back to the human so a wrong reading shows at once
 * (and `/reopen` corrects it). A reply that is exactly an option ("2", "SQLite") or that answers a
 * question without options needs no echo: it was read as written. One that was interpreted does:
 * an option with words after it (the words are kept as a note), or text that chose no option of a
 * question that has options (see matchOption for what counts as a confident choice).
 */
export function needsEcho(answer: Answer, question: Question): boolean {
  if (question.options.length === 0) return false;
  return answer.option === undefined || answer.note !== undefined;
}

const SHOWN_CHARS = 200;

/** Human text shown back inside inline code: no Markdown, no @mention pinging anyone again. */
export function shown(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim().replace(/`/g, "ʼ");
  return `\`${flat.length > SHOWN_CHARS ? `${flat.slice(0, SHOWN_CHARS)}…` : flat}\``;
}

/** "**2. SQLite**, with the note `…`" or "free text (no option matched): `…`". */
export function describeReading(answer: Answer, question: Question): string {
  if (answer.option !== undefined && answer.optionIndex !== undefined) {
    const chosen = `**${answer.optionIndex + 1}. ${answer.option}**`;
    return answer.note === undefined ? chosen : `${chosen}, with the note ${shown(answer.note)}`;
  }
  if (question.options.length === 0) return `text ${shown(answer.text)}`;
  const named = optionsNamed(answer.text, question.options).map((i) => `${i + 1}. ${question.options[i]}`);
  const why =
    named.length > 1
      ? `it names ${named.join(" and ")}, so no option was chosen`
      : named.length === 1
        ? `it names ${named[0]} but does not start with it, so no option was chosen`
        : "no option matched";
  return `free text (${why}): ${shown(answer.text)}`;
}

/** The plain reading for the status log: "2. SQLite (with a note)" / "free text". */
export function readingSummary(answers: readonly Answer[], questions: readonly Question[]): string {
  return answers
    .map((answer) => {
      const prefix = questions.length > 1 ? `Q${answer.question + 1} ` : "";
      if (answer.option !== undefined && answer.optionIndex !== undefined)
        return `${prefix}${answer.optionIndex + 1}. ${answer.option}${answer.note ? " (with a note)" : ""}`;
      return `${prefix}free text`;
    })
    .join(", ");
}

/** The lines of an echo, one per answer of the reply when there are several questions; empty when nothing was interpreted. */
export function echoLines(answers: readonly Answer[], questions: readonly Question[]): string[] {
  if (!answers.some((a) => needsEcho(a, questions[a.question]!))) return [];
  if (questions.length === 1) return [`Recorded as ${describeReading(answers[0]!, questions[0]!)}.`];
  return answers.map((a) => `- **Q${a.question + 1}** recorded as ${describeReading(a, questions[a.question]!)}`);
}

/**
 * The acknowledgement comment for an interpreted reply, or undefined when the reply was read as
 * written. It goes through the feedback queue: the agent is already on its way when it is posted.
 */
export function renderEcho(by: string, answers: readonly Answer[], questions: readonly Question[]): string | undefined {
  const lines = echoLines(answers, questions);
  if (lines.length === 0) return undefined;
  const head = questions.length === 1 ? `📝 @${by}: ${lines[0]}` : `📝 @${by}: your reply was recorded as\n\n${lines.join("\n")}`;
  const example = questions.length === 1 ? "`/reopen 1`" : "`/reopen 1. <answer>`";
  return `${head}\n\nNot what you meant? Reply \`/reopen <corrected answer>\` (like ${example}) and the agent is re-spawned with the correction.`;
}
