/**
 * `/reopen TEXT` corrects the last answer (a default taken at timeout, or a misread reply): a
 * correction gate with the same questions is recorded as answered and resumes like any other, so
 * the one-spawn-per-answer rule holds and the history shows both.
 */
import { CORRECTION_KIND } from "../domain.js";
import type { CommentEvent } from "../payloads.js";
import { newAskId } from "../protocol/ask.js";
import { readingSummary } from "../protocol/echo.js";
import { parseReply } from "../protocol/reply.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf } from "../status/feedback.js";
import { applyAnswers, type AnswerPorts } from "./answerGate.js";
import { refusedAnswer, type RefusalPorts } from "./answerers.js";
import { isApprovalGate } from "./approvalGate.js";
import { at, reply } from "./commandComment.js";
import type { Outcome } from "./outcome.js";

/** What a correction touches: the last gate, the correction gate it opens and answers, the round it is in. */
export type ReopenPorts = AnswerPorts &
  RefusalPorts & {
    gates: Pick<Services["gates"], "lastGate" | "openGate" | "getGate">;
    rounds: Pick<Services["rounds"], "currentRound">;
  };

export async function reopen(services: ReopenPorts, event: CommentEvent, args: string): Promise<Outcome> {
  const last = await services.gates.lastGate({ repo: event.repo, issue: event.issue.number });
  if (!last || last.state === "open" || last.state === "cancelled" || last.state === "superseded") {
    await reply(services, event, last?.state === "open" ? "The question is still open: just answer it." : "There is no answered question to reopen.");
    return { kind: "reopenDeclined", why: "nothing to correct" };
  }
  const refused = await refusedAnswer(services, event, last);
  if (refused) return refused;
  if (isApprovalGate(last)) {
    // One person's /reopen must not overturn what the approval policy decided.
    await reply(
      services,
      event,
      "An approval is not corrected with `/reopen`: each vote counts once. `/retry` runs the agent again, and it asks for approval anew.",
    );
    return { kind: "reopenDeclined", why: "refused on an approval" };
  }
  const parsed = parseReply(args, last.ask.questions);
  if (parsed.answers.length === 0) {
    await reply(services, event, "`/reopen` needs the corrected answer after it, e.g. `/reopen 2` or `/reopen 1. Postgres`.");
    return { kind: "reopenDeclined", why: "no answer" };
  }
  const by = event.comment.author.login;
  const when = at(event);
  const id = `r${event.comment.id}`;
  const ask = { ...last.ask, kind: CORRECTION_KIND, id: newAskId(), context: `Correction by @${by} of the earlier answer to gate ${last.id}.` };
  const ref = { repo: event.repo, issue: event.issue.number };
  await services.gates.openGate({
    id,
    repo: event.repo,
    issue: event.issue.number,
    installationId: event.installationId,
    round: await services.rounds.currentRound(ref),
    ask,
    askedAt: when,
    askedBy: by,
    askUrl: event.comment.url,
    answerers: last.answerers,
  });
  const gate = await services.gates.getGate(id);
  if (!gate) return { kind: "reopenDeclined", why: "gate vanished" };
  const corrected = parsed.answers.map((a) => ({
    ...a,
    by,
    at: when,
    source: "human" as const,
    commentId: event.comment.id,
    url: event.comment.url,
    deliveryId: event.deliveryId,
  }));
  const kept = last.answers.filter((a) => !corrected.some((c) => c.question === a.question));
  await sendFeedback(services, targetOf(event), {
    line: `@${by} reopened gate ${last.id} with a correction, read as ${readingSummary(parsed.answers, last.ask.questions)}; the agent is re-spawned with it`,
  });
  return applyAnswers(services, targetOf(event), gate, [...corrected, ...kept], {
    by,
    commentId: event.comment.id,
    at: when,
    receivedAt: event.receivedAt,
    url: event.comment.url,
  });
}
