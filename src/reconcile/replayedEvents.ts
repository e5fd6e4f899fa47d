/**
 * The events a rebuild replays through the webhook's own path, in the shape its payload mapping
 * gives them: a reply created or deleted, the issue closed. Their delivery ids say they are a
 * rebuild's and name the comment or issue replayed.
 */
import type { Outcome } from "../gates/outcome.js";
import type { CommentEvent, InboundEvent } from "../payloads.js";
import type { GoneReply } from "./deletedComments.js";
import type { IssueSnapshot } from "./issueSnapshot.js";
import type { ReplySnapshot } from "./reviewReplies.js";

/** Runs an event through the webhook's path (handleInbound): how replies are replayed, taking no import of it. */
export type Replay = (event: InboundEvent) => Promise<Outcome>;

/** What every replayed event carries: the issue as listed, delivered by "reconcile". */
export type ReplayBase = Omit<Extract<InboundEvent, { kind: "closed" }>, "kind" | "sender">;

/** The issue as the webhook's events carry it, within the payload schema's bounds. */
export function replayBase(installationId: number, repo: string, issue: IssueSnapshot): ReplayBase {
  return {
    deliveryId: "reconcile",
    installationId,
    repo,
    issue: {
      number: issue.number,
      title: issue.title,
      body: issue.body ?? "",
      url: issue.html_url,
      state: issue.state,
      ...(issue.user ? { author: issue.user.login } : {}),
      isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null,
      assignees: (issue.assignees ?? []).map((a) => a.login).slice(0, 10),
      labels: (issue.labels ?? [])
        .map((l) => (typeof l === "string" ? l : (l.name ?? "")))
        .filter(Boolean)
        .slice(0, 100),
    },
    receivedAt: Date.now(),
  };
}

/** A reply (or an ask, to reopen its gate) as if its webhook had just arrived. */
export function replyCreated(base: ReplayBase, comment: ReplySnapshot): CommentEvent {
  return {
    ...base,
    kind: "comment",
    action: "created",
    deliveryId: `reconcile-${comment.id}`,
    sender: userOf(comment),
    comment: commentOf(comment),
  };
}

/** A recorded reply GitHub no longer has, deleted as its webhook would have said (by its author, now). */
export function replyDeleted(base: ReplayBase, gone: GoneReply): CommentEvent {
  const author = { login: gone.by, type: "User" };
  const comment = { id: gone.id, body: "", url: gone.url, createdAt: new Date().toISOString(), author };
  return { ...base, kind: "comment", action: "deleted", deliveryId: `reconcile-deleted-${gone.id}`, sender: author, comment };
}

/** The issue closed while its question was open. */
export function issueClosed(base: ReplayBase): InboundEvent {
  return { ...base, kind: "closed", deliveryId: `reconcile-closed-${base.issue.number}`, sender: { login: "reconcile", type: "Bot" } };
}

function userOf(comment: ReplySnapshot) {
  return { login: comment.user?.login ?? "ghost", type: comment.user?.type ?? "User" };
}

function commentOf(comment: ReplySnapshot): CommentEvent["comment"] {
  return {
    id: comment.id,
    body: comment.body ?? "",
    url: comment.html_url,
    createdAt: comment.created_at,
    author: userOf(comment),
    ...(comment.in ? { in: comment.in } : {}),
  };
}
