/**
 * Where a human can reply: an issue comment (on an issue or a pull request's conversation), a
 * pull request review's body, or a review comment on a line of its diff.
 */
export type ReplyKind = "issueComment" | "review" | "reviewComment";

/**
 * GitHub numbers issue comments, reviews and review comments in separate id spaces, yet the loop
 * records a reply by one number (a gate's answerCommentId, an answer's or vote's commentId, the keys
 * of its feedback entries). An issue comment keeps its own id; a review is stored as −2·id and a review
 * comment as −(2·id + 1), so no two replies share a number and the sign says which endpoints it has
 * (only an issue comment is reacted to). GitHub's ids are far below 2^52, where this stays exact.
 */
export function replyId(kind: ReplyKind, githubId: number): number {
  if (kind === "issueComment") return githubId;
  return kind === "review" ? -2 * githubId : -(2 * githubId + 1);
}

/** Whether a stored reply id names an issue comment (the only kind with the issue-comment endpoints). */
export function isIssueComment(id: number): boolean {
  return id > 0;
}
