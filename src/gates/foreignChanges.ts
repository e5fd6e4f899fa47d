import type { Gate } from "../domain.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";
import type { Decided, Outcome } from "./outcome.js";

/**
 * Whether a comment's edit or deletion was made by someone other than its author: GitHub names who
 * acted in the webhook's `sender`, the comment's author in `comment.user`. The agent's token acts as
 * the App's bot and may edit or delete any comment, so only the author changes what they said.
 */
export function changedByAnother(event: Pick<CommentEvent, "sender" | "comment">): boolean {
  return event.sender.login.toLowerCase() !== event.comment.author.login.toLowerCase();
}

/** The status line saying another account changed a human's words and the app keeps that human's own. */
export function wordsKept(by: string, changed: string, author: string): string {
  return `⚠️ @${by} ${changed} of @${author}; the app keeps @${author}'s own words. Only @${author} can change it.`;
}

/** What keeping a human's words touches: their answers, votes and notes, the once-per-change mark, the issue's feedback. */
export type ForeignChangePorts = FeedbackPorts & {
  gates: Pick<Services["gates"], "issueGates" | "votes" | "reviseAnswers">;
  notes: Pick<Services["notes"], "notes" | "keepDeletedNote">;
  commentMarks: Pick<Services["commentMarks"], "firstTime">;
  log: Pick<Services["log"], "debug" | "warn">;
};

/**
 * Another account edited or deleted a human's comment: it is neither a revision nor a withdrawal of
 * what that human said. An answer, vote or /note the comment gave stands as its author wrote it, in
 * Redis, in later tasks and in the status record; a deleted answer or note is marked so a rebuild
 * does not withdraw it either. Said once on the issue, and logged.
 */
export async function foreignChange(services: ForeignChangePorts, event: CommentEvent): Promise<Outcome> {
  const author = event.comment.author.login;
  const by = event.sender.login;
  const verb = event.action === "deleted" ? "deleted" : "edited";
  const decided = await whatItDecided(services, event);
  const fields = { repo: event.repo, issue: event.issue.number, comment: event.comment.id, author, by, action: event.action };
  if (!decided) {
    services.log.debug(fields, "a comment that decided nothing was changed by someone other than its author");
    return { kind: "ignored", reason: "changed by another", verb, by, author };
  }
  const { what, gate } = decided;
  services.log.warn({ ...fields, what }, "a human's decision was changed by someone other than its author; it stands as they wrote it");
  if (event.action === "deleted" && gate) await keepDeletedAnswer(services, gate, event.comment.id, by);
  if (event.action === "deleted" && what === "note")
    await services.notes.keepDeletedNote({ repo: event.repo, issue: event.issue.number }, event.comment.url, by);
  // Once per comment and kind of change: repeated edits cannot flood the status comment.
  if (await services.commentMarks.firstTime(`foreign-${verb}:${event.repo.toLowerCase()}#${event.issue.number}:${event.comment.id}`)) {
    await sendFeedback(services, targetOf(event), { line: wordsKept(by, `${verb} the ${what}`, author) });
  }
  return { kind: "wordsKept", what, verb, by };
}

async function whatItDecided(services: Pick<ForeignChangePorts, "gates" | "notes">, event: CommentEvent): Promise<{ what: Decided; gate?: Gate } | undefined> {
  const ref = { repo: event.repo, issue: event.issue.number };
  const [gates, notes] = await Promise.all([services.gates.issueGates(ref), services.notes.notes(ref)]);
  const gate = gates.findLast((g) => g.answers.some((a) => a.commentId === event.comment.id));
  if (gate) return gate.answers.some((a) => a.approval) ? { what: "vote" } : { what: "answer", gate };
  if (notes.some((n) => n.url === event.comment.url && !n.withdrawn)) return { what: "note" };
  const open = gates.at(-1);
  if (open?.state === "open" && (await services.gates.votes(open.id)).some((v) => v.commentId === event.comment.id)) return { what: "vote" };
  return undefined;
}

/** The answers stay, marked with who deleted their comment, so a rebuild keeps them too (src/reconcile/deletedComments.ts). */
async function keepDeletedAnswer(services: Pick<ForeignChangePorts, "gates">, gate: Gate, commentId: number, by: string): Promise<void> {
  const kept = gate.answers.filter((a) => a.commentId === commentId).map((a) => ({ ...a, deletedBy: by }));
  await services.gates.reviseAnswers(gate, commentId, kept, Date.now());
}
