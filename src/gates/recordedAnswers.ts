import type { Answer, RecordedAnswer } from "../domain.js";
import type { CommentEvent } from "../payloads.js";

/**
 * A human's answers as the gate records them: who gave them in which comment (and, for a review
 * comment, on which line of the diff), from which delivery, at `at`.
 */
export function recordedAnswers(answers: readonly Answer[], event: CommentEvent, at: number): RecordedAnswer[] {
  const place = event.comment.in;
  return answers.map((answer) => ({
    ...answer,
    by: event.comment.author.login,
    at,
    source: "human",
    commentId: event.comment.id,
    url: event.comment.url,
    ...(place?.kind === "reviewComment" ? { about: { path: place.path, line: place.line, side: place.side } } : {}),
    deliveryId: event.deliveryId,
  }));
}
