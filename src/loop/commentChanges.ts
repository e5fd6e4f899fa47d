import type { RepoSettings } from "../config/repoConfig.js";
import type { Gate, RecordedAnswer } from "../gates/types.js";
import type { ReviseResult } from "../gates/store.js";
import { parseCommand } from "../protocol/commands.js";
import { readingSummary } from "../protocol/echo.js";
import { parseReply } from "../protocol/reply.js";
import type { CommentEvent } from "../queue/jobs.js";
import type { Services } from "../services.js";
import { answerFromReply } from "./answerGate.js";
import { isApprovalGate } from "./approvalGate.js";
import { sendFeedback, targetOf } from "./feedback.js";

/**
 * A human edited a comment that answered a gate (wholly or in part) or left a /note. While the gate
 * is open, the edit is read again like a new reply; otherwise it replaces what the comment answered,
 * so every later round gets the edited text (a round already running keeps what it started with).
 * An edit that no longer answers a question withdraws that answer, as a deletion does.
 */
export async function commentEdited(services: Services, event: CommentEvent): Promise<string> {
  const note = noteText(event.comment.body);
  if (await noteRevised(services, event, note)) {
    // The status comment's record is rendered again from what Redis now holds: the old text goes.
    await sendFeedback(services, targetOf(event), [], `the note from @${event.comment.author.login} was ${note ? "edited; later rounds get the edited text" : "edited into no note, so it was withdrawn"}`);
  }
  const gate = await gateAnsweredBy(services, event);
  if (!gate) return "ignored: edit of a comment that answered nothing";
  // A vote is cast by a comment, once: an edit does not recast it (the person votes again instead).
  if (isApprovalGate(gate)) return "ignored: an edited vote is not read again";
  const by = event.comment.author.login;
  const target = targetOf(event);
  const parsed = parseReply(event.comment.body, gate.ask.questions);
  if (gate.state === "open" && parsed.answers.length > 0) {
    // A partial answer: the gate merges answers by question, so the edit's answers replace the comment's.
    await sendFeedback(services, target, [], `@${by} edited an answer to gate ${gate.id} before it was complete; the edit replaces it`);
    return answerFromReply(services, event, gate);
  }
  const at = Date.now();
  const answers: RecordedAnswer[] = parsed.answers.map((a) => ({ ...a, by, at, source: "human", commentId: event.comment.id, url: event.comment.url }));
  const revised = await services.store.reviseAnswers(gate, event.comment.id, answers, at);
  if (revised.outcome === "missing" || revised.outcome === "none") return "ignored: edit of a comment that answered nothing";
  if (parsed.answers.length < answered(gate, event.comment.id)) {
    await sendFeedback(services, target, [], withdrawalLine(gate, revised, `the edit of @${by} no longer answers part of gate ${gate.id}, so that answer was withdrawn`));
    return "answer withdrawn by an edit";
  }
  if (revised.state === "answered") {
    await sendFeedback(services, target, [], `@${by} edited the answer to gate ${gate.id} before the agent resumed; the edit is what the agent gets, read as ${readingSummary(parsed.answers, gate.ask.questions)}`);
    return "answer replaced";
  }
  await sendFeedback(
    services,
    target,
    [{ type: "comment", body: `@${by} your edit came after the agent had resumed with the original answer: that round keeps it, and every later round gets your edited text. Reply \`/reopen <corrected answer>\` to re-run with the correction now.` }],
    `@${by} edited the answer to gate ${gate.id} after the agent had resumed with it; later rounds get the edited text`,
    `late-edit-${event.comment.id}-${event.deliveryId}`,
  );
  return "answer revised for later rounds";
}

/**
 * A deleted question comment cancels its gate: nobody can see the question any more. A deleted
 * answer or /note is withdrawn: no later round is told its text, and Redis keeps no copy of it.
 */
export async function commentDeleted(services: Services, event: CommentEvent, settings: RepoSettings): Promise<string> {
  const asked = await services.store.getGate(String(event.comment.id));
  if (asked) return questionDeleted(services, event, settings, asked);
  const target = targetOf(event);
  const by = event.comment.author.login;
  const deletedBy = event.sender.login === by ? "" : ` by @${event.sender.login}`;
  const outcomes: string[] = [];
  if (await noteRevised(services, event, "")) {
    await sendFeedback(services, target, [], `a note from @${by} was withdrawn (its comment was deleted${deletedBy}); later rounds are not told its text`);
    outcomes.push("note withdrawn");
  }
  const gate = await gateAnsweredBy(services, event);
  // A vote stays counted: the decision it helped make has been acted on (README, "Approvals").
  if (gate && !isApprovalGate(gate)) {
    const revised = await services.store.reviseAnswers(gate, event.comment.id, [], Date.now());
    if (revised.outcome !== "missing" && revised.outcome !== "none") {
      await sendFeedback(services, target, [], withdrawalLine(gate, revised, `the answer of @${by} to gate ${gate.id} was withdrawn (its comment was deleted${deletedBy})`));
      outcomes.push(revised.outcome === "reopened" ? "answer withdrawn before the resume" : "answer withdrawn");
    }
  }
  return outcomes.join("; ") || "ignored: deleted comment was no question, answer or note";
}

async function questionDeleted(services: Services, event: CommentEvent, settings: RepoSettings, gate: Gate): Promise<string> {
  if (gate.state !== "open") return "ignored: deleted comment was no open question";
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

/** What became of the gate, after `what` (the status line never quotes the withdrawn text). */
function withdrawalLine(gate: Gate, revised: Exclude<ReviseResult, { outcome: "missing" }>, what: string): string {
  if (revised.outcome === "reopened") {
    return revised.state === "open"
      ? `${what} before the agent resumed; the gate waits for a new answer`
      : `${what} before the agent resumed; a newer question stands, so gate ${gate.id} is superseded`;
  }
  if (revised.state === "open") return `${what}; that question waits for an answer again`;
  return `${what}; later rounds are not told its text`;
}

/** The issue's newest gate the comment answered (a reply answers one gate), if any. */
async function gateAnsweredBy(services: Services, event: CommentEvent): Promise<Gate | undefined> {
  const gates = await services.store.issueGates({ repo: event.repo, issue: event.issue.number });
  return gates.findLast((g) => g.answers.some((a) => a.commentId === event.comment.id));
}

function answered(gate: Gate, commentId: number): number {
  return gate.answers.filter((a) => a.commentId === commentId).length;
}

/** The guidance of a /note comment as edited; "" when it is no longer a note. */
function noteText(body: string): string {
  const command = parseCommand(body);
  return command?.name === "note" ? command.args.trim() : "";
}

/** Replaces (or, with "", withdraws) the note the comment left, if it left one. */
async function noteRevised(services: Services, event: CommentEvent, text: string): Promise<boolean> {
  return (await services.store.reviseNote({ repo: event.repo, issue: event.issue.number }, event.comment.url, text)) > 0;
}
