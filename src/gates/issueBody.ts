import type { BodyEdit } from "../domain.js";
import type { IssueEditedEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";
import { wordsKept } from "./foreignChanges.js";
import type { Outcome } from "./outcome.js";

/**
 * The issue's body is its author's words: the task quotes it as theirs. The agent's token acts as
 * the App's bot and may edit any issue's body, so only the author changes what the task quotes; an
 * edit by anyone else (the bot, a maintainer) leaves the author's own last version in the task.
 */

/**
 * Whether the body was changed by someone other than the issue's author (a deleted author has nobody
 * to match). The app never edits a body: on a pull request it opened (its bot the author), an edit
 * under the bot's name is the agent's, not the author's.
 */
export function bodyChangedByAnother(event: Pick<IssueEditedEvent, "sender" | "issue">, appLogin?: string): boolean {
  const sender = event.sender.login.toLowerCase();
  return sender !== event.issue.author?.toLowerCase() || sender === appLogin?.toLowerCase();
}

/** What the task quotes as the issue's description. */
export type TaskBody =
  | { kind: "author's"; text: string }
  /** Changed by `editor`; `text` is the author's own last version. */
  | { kind: "kept"; text: string; editor: string }
  /** Changed by `editor`, and the author's own version is unknown: the body is left out. */
  | { kind: "not-theirs"; editor: string };

export function taskBody(record: { body: string; bodyEdit?: BodyEdit }): TaskBody {
  const edit = record.bodyEdit;
  if (!edit) return { kind: "author's", text: record.body };
  return edit.authorBody === undefined ? { kind: "not-theirs", editor: edit.editor } : { kind: "kept", text: edit.authorBody, editor: edit.editor };
}

/** The task's issue fields for the body (src/agent/renderTask.ts). */
export function bodyForTask(record: { body: string; bodyEdit?: BodyEdit }): { body: string; bodyChangedBy?: { editor: string; kept: boolean } } {
  const told = taskBody(record);
  if (told.kind === "author's") return { body: told.text };
  return told.kind === "kept"
    ? { body: told.text, bodyChangedBy: { editor: told.editor, kept: true } }
    : { body: "", bodyChangedBy: { editor: told.editor, kept: false } };
}

/** What recording a body edit touches: the issue's record, the App's identity, the once-per-edit mark, the issue's feedback. */
export type IssueBodyPorts = FeedbackPorts & {
  github: Pick<Services["github"], "identity">;
  issues: Pick<Services["issues"], "getIssue" | "issueBodyEdited">;
  commentMarks: Pick<Services["commentMarks"], "firstTime">;
  log: Pick<Services["log"], "warn">;
};

/**
 * `issues.edited`: records whose words the body now is, before the payload's body is stored (a task
 * rendered in between never quotes another account's edit as the author's). Another account's
 * change of an issue the app has worked on is said once per edit on its status comment, and logged.
 */
export async function issueEdited(services: IssueBodyPorts, event: IssueEditedEvent): Promise<Outcome> {
  if (event.previousBody === undefined) return { kind: "ignored", reason: "the body did not change" };
  const ref = { repo: event.repo, issue: event.issue.number };
  const foreign = bodyChangedByAnother(event, (await services.github.identity()).botLogin);
  const before = await services.issues.getIssue(ref);
  await services.issues.issueBodyEdited(ref, { body: event.issue.body, byAuthor: !foreign, editor: event.sender.login, previous: event.previousBody });
  if (!foreign) return { kind: "bodyEdited", editor: event.sender.login, byAuthor: true };
  const author = event.issue.author ?? "ghost";
  const kept = taskBody((await services.issues.getIssue(ref)) ?? { body: event.issue.body }).kind === "kept";
  services.log.warn(
    { ...ref, author, by: event.sender.login, kept },
    "the issue's body was changed by someone other than its author; the task keeps the author's words",
  );
  if (before?.nextRound && (await services.commentMarks.firstTime(`foreign-body:${event.repo.toLowerCase()}#${event.issue.number}:${event.deliveryId}`))) {
    const line = kept
      ? wordsKept(event.sender.login, "edited the issue's body", author)
      : `⚠️ @${event.sender.login} edited the issue's body of @${author}; the agent's task leaves it out until @${author} edits it.`;
    await sendFeedback(services, targetOf(event), { line });
  }
  return { kind: "bodyEdited", editor: event.sender.login, byAuthor: false };
}
