import type { RepoSettings } from "../config/repoConfig.js";
import { appMentionNames } from "../protocol/addressing.js";
import { readingSummary } from "../protocol/echo.js";
import { parseReply } from "../protocol/reply.js";
import type { CommentEvent } from "../queue/jobs.js";
import type { Services } from "../services.js";
import { answerFromReply } from "./answerGate.js";
import { isApprovalGate } from "./approvalGate.js";
import { sendFeedback, targetOf } from "./feedback.js";

/**
 * A human edited a comment that answered the last gate (wholly or in part). While the gate is
 * open, the edit is read again like a new reply; once answered but before the resume started, it
 * replaces the recorded answer; after, the agent keeps the original and the human is told so (and
 * how to correct it).
 */
export async function commentEdited(services: Services, event: CommentEvent): Promise<string> {
  const gate = await services.store.lastGate({ repo: event.repo, issue: event.issue.number });
  const answered = gate !== undefined && (gate.answerCommentId === event.comment.id || gate.answers.some((a) => a.commentId === event.comment.id));
  if (!gate || !answered) return "ignored: edit of a comment that answered nothing";
  // A vote is cast by a comment, once: an edit does not recast it (the person votes again instead).
  if (isApprovalGate(gate)) return "ignored: an edited vote is not read again";
  const parsed = parseReply(event.comment.body, gate.ask.questions, appMentionNames((await services.github.identity()).botLogin));
  if (parsed.answers.length === 0) return "ignored: edited answer has no answer";
  if (gate.state === "open") {
    // A partial answer: the gate merges answers by question, so the edit's answers replace the comment's.
    await sendFeedback(services, targetOf(event), [], `@${event.comment.author.login} edited an answer to gate ${gate.id} before it was complete; the edit replaces it`);
    return answerFromReply(services, event, gate);
  }
  const at = Date.now();
  const answers = [
    ...parsed.answers.map((a) => ({ ...a, by: event.comment.author.login, at, source: "human" as const, commentId: event.comment.id, url: event.comment.url })),
    ...gate.answers.filter((a) => !parsed.answers.some((p) => p.question === a.question)),
  ].sort((a, b) => a.question - b.question);
  // The guard is the comment that completed the gate, which may be another one than the edited.
  const outcome = await services.store.replaceAnswer(gate.id, gate.answerCommentId ?? event.comment.id, answers);
  if (outcome === "replaced") {
    await sendFeedback(services, targetOf(event), [], `@${event.comment.author.login} edited the answer to gate ${gate.id} before the agent resumed; the edit is what the agent gets, read as ${readingSummary(parsed.answers, gate.ask.questions)}`);
    return "answer replaced";
  }
  await sendFeedback(
    services,
    targetOf(event),
    [{ type: "comment", body: `@${event.comment.author.login} your edit came after the agent had resumed with the original answer, so it was not used. Reply \`/reopen <corrected answer>\` to re-run with the correction.` }],
    undefined,
    `late-edit-${event.comment.id}-${event.deliveryId}`,
  );
  return "edit too late";
}

/** A deleted question comment cancels its gate: nobody can see the question any more. */
export async function commentDeleted(services: Services, event: CommentEvent, settings: RepoSettings): Promise<string> {
  const gate = await services.store.getGate(String(event.comment.id));
  if (!gate || gate.state !== "open") return "ignored: deleted comment was no open question";
  if (!(await services.store.cancelGate(gate, "the question comment was deleted"))) return "ignored: gate already settled";
  services.events.notify("gate.closed", { gate, state: "cancelled", reason: "the question comment was deleted" });
  await sendFeedback(
    services,
    targetOf(event),
    [{ type: "removeLabel", label: settings.labels.awaiting }],
    `the question of gate ${gate.id} was deleted by @${event.sender.login}; gate cancelled, no resume`,
  );
  return "gate cancelled: question deleted";
}
