/**
 * The agent's ask comments on an issue, the questions a rebuild restores gates from: a comment of
 * the agent's (or the App's bot) whose ask marker reads. A malformed marker asks nothing; any other
 * error is a bug and is thrown.
 */
import type { Ask } from "../domain.js";
import { ProtocolError } from "../errors.js";
import { parseAskComment } from "../protocol/ask.js";
import type { ReplySnapshot } from "./reviewReplies.js";

/** An ask comment and the question it carries. */
export interface AskComment {
  comment: ReplySnapshot;
  ask: Ask;
}

/** The ask comments among an issue's comments, in the order they were listed (oldest first). */
export function askComments(comments: readonly ReplySnapshot[], isAgent: (login: string) => boolean): AskComment[] {
  return comments.flatMap((c) => {
    if (!c.user || !isAgent(c.user.login) || !c.body) return [];
    const ask = safeAsk(c.body);
    return ask ? [{ comment: c, ask }] : [];
  });
}

/** When an ask comment was edited, if it was (GitHub's timestamps have whole seconds: a later second). */
export function editedAt(comment: Pick<ReplySnapshot, "created_at" | "updated_at">): number | undefined {
  const created = Date.parse(comment.created_at);
  const updated = Date.parse(comment.updated_at ?? "");
  return updated > created ? updated : undefined;
}

function safeAsk(body: string): Ask | undefined {
  try {
    return parseAskComment(body);
  } catch (error) {
    if (error instanceof ProtocolError) return undefined;
    throw error;
  }
}
