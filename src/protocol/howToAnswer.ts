import type { Question } from "../domain.js";
import { shown } from "./echo.js";

/**
 * The one short comment for a reply that answered nothing although it was meant for the question
 * (a 👍, a "+1", only a mention): how to answer, with this question's own options as the example,
 * and how to talk without answering.
 */
export function renderHowToAnswer(by: string, questions: readonly Question[]): string {
  const withOptions = questions.findIndex((question) => question.options.length > 0);
  const example =
    withOptions < 0
      ? "reply with your answer as text"
      : questions.length === 1
        ? `reply with an option's number or name, like \`${Math.min(2, questions[0]!.options.length)}\` or ${shown(questions[0]!.options[0]!)}`
        : `reply with one line per question, like \`${withOptions + 1}. 1\` or ${shown(`${withOptions + 1}. ${questions[withOptions]!.options[0]!}`)}`;
  return `@${by} that was not taken as an answer. To answer, ${example}. To talk without answering, start the comment with \`/discuss\` or with \`@someone\`; \`/help\` lists the rest.`;
}
