import type { BodyEdit } from "../domain.js";
import { sendFeedback, type IssueTarget } from "../status/feedback.js";
import type { Services } from "../services/services.js";
import { authorsText, readEditHistories, type GraphqlPort } from "./editHistory.js";
import type { ReplySnapshot } from "./reviewReplies.js";

/**
 * The replies a rebuild reads, each with its author's own words: a human's reply that someone else
 * edited last gets back the author's last version from its edit history, or, when the history does
 * not hold it, no text (it answers nothing; the gate keeps waiting), said once on the issue.
 * Only replies that could answer (a human's, from `since` on) are looked up, in one GraphQL request
 * per IDS_PER_REQUEST of them. All of them, not only those whose `updated_at` differs from their
 * `created_at`: GitHub's timestamps have whole seconds, and an edit made within the second the reply
 * was written (an agent watching the issue can) leaves them equal.
 */
export async function withAuthorsWords(
  services: Services,
  graphql: GraphqlPort,
  target: IssueTarget,
  replies: readonly ReplySnapshot[],
  mayAnswer: (reply: ReplySnapshot) => boolean,
  since: number,
): Promise<ReplySnapshot[]> {
  const candidates = replies.filter((r) => r.node_id && r.body && Date.parse(r.created_at) >= since - 1000 && mayAnswer(r));
  if (candidates.length === 0) return [...replies];
  const histories = await readEditHistories(
    graphql,
    candidates.map((r) => r.node_id!),
  );
  const words = new Map<number, string | undefined>();
  for (const reply of candidates) {
    const history = histories.get(reply.node_id!);
    if (!history) continue; // deleted since it was listed: the deletion is read as such
    const text = authorsText(history);
    if (text.kind === "as-shown") continue;
    const author = reply.user?.login ?? "ghost";
    services.log.warn(
      { repo: target.repo, issue: target.issue, comment: reply.id, author, editor: text.editor, taken: text.kind },
      "a reply was last edited by someone other than its author",
    );
    if (text.kind === "own-version") {
      words.set(reply.id, text.text);
      continue;
    }
    words.set(reply.id, undefined);
    if (await services.commentMarks.firstTime(`not-theirs:${target.repo.toLowerCase()}#${target.issue}:${reply.id}:${history.lastEditedAt}`)) {
      await sendFeedback(services, target, {
        line: `⚠️ @${text.editor} edited the reply of @${author} (${reply.html_url}) and ${text.why}: it is not taken as @${author}'s answer. @${author} can answer again.`,
      });
    }
  }
  return replies.map((r) => (words.has(r.id) ? { ...r, body: words.get(r.id) } : r));
}

/**
 * Whose words an issue's body is, read from its edit history as a reply's are (an issue is a
 * `Comment` to GitHub's GraphQL API): null when its author's, as shown; else who changed it last and
 * the author's own last version when the history holds it. Undefined when GitHub no longer has it.
 */
export async function issueBodyEdit(graphql: GraphqlPort, nodeId: string): Promise<BodyEdit | null | undefined> {
  const history = (await readEditHistories(graphql, [nodeId])).get(nodeId);
  if (!history) return undefined;
  const text = authorsText(history);
  if (text.kind === "as-shown") return null;
  return text.kind === "own-version" ? { editor: text.editor, authorBody: text.text } : { editor: text.editor };
}
