import { recordedAnswers } from "./recordedAnswers.js";
import type { RepoSettings } from "../config/repoConfig.js";
import type { Gate } from "../domain.js";
import { appMentionNames } from "../protocol/addressing.js";
import { parseCommand } from "../protocol/commands.js";
import { readingSummary } from "../protocol/echo.js";
import { parseReply } from "../protocol/reply.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { answerFromReply, type ReplyPorts } from "./answerGate.js";
import { isApprovalGate } from "./approvalGate.js";
import { sendFeedback, targetOf } from "../status/feedback.js";
import { changedByAnother, foreignChange, type ForeignChangePorts } from "./foreignChanges.js";
import { combined, type Outcome } from "./outcome.js";
import { echoKeys, forgetJobs, redactEchoes, withdrawalLine } from "./withdrawals.js";

/** What an edited or deleted comment touches: the gates and notes it gave, its queued jobs and echoes, the issue's feedback. */
export type CommentChangePorts = ReplyPorts &
  ForeignChangePorts &
  Pick<Services, "events"> & {
    gates: Pick<Services["gates"], "getGate" | "issueGates" | "reviseAnswers" | "cancelGate">;
    notes: Pick<Services["notes"], "notes" | "reviseNote">;
    commentMarks: Pick<Services["commentMarks"], "markCommentDeleted">;
  };

/**
 * Reads the replies after a reopened gate's question again, in order, as a rebuild from GitHub does
 * (src/reconcile/reconcileIssue.ts): the next reply that answers it is taken, e.g. one that was told
 * "already answered" while the withdrawn answer stood. Returns what it did.
 */
export type ReadAgain = () => Promise<Outcome>;

/**
 * A human edited a comment that answered a gate (wholly or in part) or left a /note. While the gate
 * is open, the edit is read again like a new reply; otherwise it replaces what the comment answered,
 * so every later round gets the edited text (a round already running keeps what it started with).
 * An edit that no longer answers a question withdraws that answer, as a deletion does.
 */
export async function commentEdited(services: CommentChangePorts, event: CommentEvent, readAgain: ReadAgain): Promise<Outcome> {
  const target = targetOf(event);
  const by = event.comment.author.login;
  const note = noteText(event.comment.body);
  const [gate, revisedNote] = await Promise.all([gateAnsweredBy(services, event), noteRevised(services, event, note, event.deliveryId)]);
  if (revisedNote) {
    // A status line renders the status comment again from Redis: its record drops the old text.
    await sendFeedback(services, target, {
      line: `the note from @${by} was ${note ? "edited; later rounds get the edited text" : "edited into no note, so it was withdrawn"}`,
    });
  }
  if (!gate) return revisedNote ? { kind: "noteRevised" } : { kind: "ignored", reason: "edit of a comment that answered nothing" };
  // A vote is cast by a comment, once: an edit does not recast it (the person votes again instead).
  if (isApprovalGate(gate)) return { kind: "ignored", reason: "an edited vote is not read again" };
  const parsed = parseReply(event.comment.body, gate.ask.questions, appMentionNames((await services.github.identity()).botLogin));
  const before = gate.answers.filter((a) => a.commentId === event.comment.id);
  if (gate.state === "open" && parsed.answers.length > 0) {
    // A partial answer: the gate merges answers by question, so the edit's answers replace the comment's.
    await sendFeedback(services, target, { line: `@${by} edited an answer to gate ${gate.id} before it was complete; the edit replaces it` });
    await forgetJobs(
      services,
      target,
      before.map((a) => a.deliveryId),
      [],
    );
    await redactEchoes(services, target, event.comment.id, "edited");
    return answerFromReply(services, event, gate);
  }
  const at = Date.now();
  const answers = recordedAnswers(parsed.answers, event, at);
  const revised = await services.gates.reviseAnswers(gate, event.comment.id, answers, at);
  if (revised.outcome === "missing" || revised.outcome === "none") return { kind: "ignored", reason: "edit of a comment that answered nothing" };
  services.events.notify("gate.revised", { gateId: gate.id, at });
  await forgetJobs(
    services,
    target,
    before.map((a) => a.deliveryId),
    echoKeys(gate.id, event.comment.id),
  );
  await redactEchoes(services, target, event.comment.id, "edited");
  if (before.some((a) => !parsed.answers.some((p) => p.question === a.question))) {
    await sendFeedback(services, target, {
      line: withdrawalLine(gate.id, revised, `the edit of @${by} no longer answers part of gate ${gate.id}, so that answer was withdrawn`),
    });
    const withdrawn: Outcome = { kind: "answerWithdrawn", how: "edited" };
    return revised.outcome === "reopened" && revised.state === "open" ? { kind: "several", outcomes: [withdrawn, await readAgain()] } : withdrawn;
  }
  if (revised.state === "answered") {
    await sendFeedback(services, target, {
      line: `@${by} edited the answer to gate ${gate.id} before the agent resumed; the edit is what the agent gets, read as ${readingSummary(parsed.answers, gate.ask.questions)}`,
    });
    return { kind: "answerRevised", how: "replaced" };
  }
  if (revised.state !== "resuming" && revised.state !== "resumed") {
    // A superseded gate's answer resumed nothing: later rounds simply get the edit.
    await sendFeedback(services, target, { line: `@${by} edited the answer to gate ${gate.id} (${revised.state}); later rounds get the edited text` });
    return { kind: "answerRevised", how: "for later rounds" };
  }
  await sendFeedback(services, target, {
    ops: [
      {
        type: "comment",
        body: `@${by} your edit came after the agent had resumed with the original answer: that round keeps it, and every later round gets your edited text. Reply \`/reopen <corrected answer>\` to re-run with the correction now.`,
      },
    ],
    line: `@${by} edited the answer to gate ${gate.id} after the agent had resumed with it; later rounds get the edited text`,
    key: `late-edit-${event.comment.id}-${event.deliveryId}`,
  });
  return { kind: "answerRevised", how: "for later rounds" };
}

/**
 * A deleted question comment cancels its gate: nobody can see the question any more. An answer or
 * /note its author deleted is withdrawn: no later round is told its text, and Redis keeps no copy of
 * it. Deleted by anyone else (the agent's token acts as the App's bot), it stands (foreignChanges.ts).
 */
export async function commentDeleted(services: CommentChangePorts, event: CommentEvent, settings: RepoSettings, readAgain: ReadAgain): Promise<Outcome> {
  const asked = await services.gates.getGate(String(event.comment.id));
  if (!asked && changedByAnother(event)) return foreignChange(services, event);
  // First: a creation processed after this (out of order) then records nothing (see applyAnswers).
  await services.commentMarks.markCommentDeleted(event.repo, event.comment.id);
  if (asked) return questionDeleted(services, event, settings, asked);
  const target = targetOf(event);
  const by = event.comment.author.login;
  const outcomes: Outcome[] = [];
  const [gate, revisedNote] = await Promise.all([gateAnsweredBy(services, event), noteRevised(services, event, "")]);
  if (revisedNote) {
    await sendFeedback(services, target, { line: `a note from @${by} was withdrawn (its comment was deleted); later rounds are not told its text` });
    outcomes.push({ kind: "noteWithdrawn", early: false });
  }
  // A vote stays counted: the decision it helped make may already have been acted on (README, "Approvals").
  if (gate && !isApprovalGate(gate)) {
    const at = Date.now();
    const revised = await services.gates.reviseAnswers(gate, event.comment.id, [], at);
    if (revised.outcome !== "missing" && revised.outcome !== "none") {
      services.events.notify("gate.revised", { gateId: gate.id, at });
      const before = gate.answers.filter((a) => a.commentId === event.comment.id);
      await forgetJobs(
        services,
        target,
        before.map((a) => a.deliveryId),
        echoKeys(gate.id, event.comment.id),
      );
      await redactEchoes(services, target, event.comment.id, "deleted");
      await sendFeedback(services, target, {
        line: withdrawalLine(gate.id, revised, `the answer of @${by} to gate ${gate.id} was withdrawn (its comment was deleted)`),
      });
      outcomes.push({ kind: "answerWithdrawn", how: revised.outcome === "reopened" ? "deleted before the resume" : "deleted" });
      if (revised.outcome === "reopened" && revised.state === "open") outcomes.push(await readAgain());
    }
  }
  return combined(outcomes, { kind: "ignored", reason: "deleted comment was no question, answer or note" });
}

async function questionDeleted(services: CommentChangePorts, event: CommentEvent, settings: RepoSettings, gate: Gate): Promise<Outcome> {
  if (gate.state !== "open") return { kind: "ignored", reason: "deleted comment was no open question" };
  if (!(await services.gates.cancelGate(gate, "the question comment was deleted"))) return { kind: "ignored", reason: "gate already settled" };
  services.events.notify("gate.closed", { gate, state: "cancelled", reason: "the question comment was deleted" });
  await sendFeedback(services, targetOf(event), {
    ops: [{ type: "removeLabel", label: settings.labels.awaiting }],
    line: `the question of gate ${gate.id} was deleted by @${event.sender.login}; gate cancelled, no resume`,
  });
  return { kind: "gateCancelled", why: "question deleted" };
}

/** The issue's newest gate the comment answered (a reply answers one gate), if any. */
async function gateAnsweredBy(services: Pick<CommentChangePorts, "gates">, event: CommentEvent): Promise<Gate | undefined> {
  const gates = await services.gates.issueGates({ repo: event.repo, issue: event.issue.number });
  return gates.findLast((g) => g.answers.some((a) => a.commentId === event.comment.id));
}

/** The guidance of a /note comment as edited; "" when it is no longer a note. */
function noteText(body: string): string {
  const command = parseCommand(body);
  return command?.name === "note" ? command.args.trim() : "";
}

/** Replaces (with "": withdraws) the note the comment left, if it left one; the event that brought the old text goes. */
async function noteRevised(services: CommentChangePorts, event: CommentEvent, text: string, deliveryId?: string): Promise<boolean> {
  const ref = { repo: event.repo, issue: event.issue.number };
  const before = (await services.notes.notes(ref)).filter((n) => n.url === event.comment.url);
  if (before.length === 0) return false;
  if ((await services.notes.reviseNote(ref, event.comment.url, text, deliveryId)) === 0) return false;
  await forgetJobs(
    services,
    targetOf(event),
    before.map((n) => n.deliveryId),
    [],
  );
  return true;
}
