import { replyId } from "../github/replyIds.js";
import type { ReplyPlace } from "../payloads.js";
import type { InstallationOctokit } from "../github/octokit.js";

/** A reply as reconciliation reads it: an issue comment, or a review or line comment in its shape. */
export interface ReplySnapshot {
  id: number;
  body?: string;
  html_url: string;
  created_at: string;
  updated_at?: string;
  /** GraphQL's id of the comment, for its edit history (src/reconcile/editHistory.ts). */
  node_id?: string;
  user: { login: string; type: string } | null;
  /** Absent for an issue comment. */
  in?: ReplyPlace;
}

interface ReviewListed {
  id: number;
  body?: string | null;
  state: string;
  html_url: string;
  submitted_at?: string | null;
  user: { login: string; type: string } | null;
}

interface ReviewCommentListed {
  id: number;
  body: string;
  html_url: string;
  created_at: string;
  updated_at?: string;
  node_id?: string;
  path: string;
  line?: number | null;
  side?: string;
  user: { login: string; type: string } | null;
}

/**
 * A pull request's replies written in reviews, every page of both lists: the submitted reviews
 * that have a body, and the comments on lines of its diff, each under its reply id
 * (src/github/replyIds.ts), so they replay through the same path as their webhooks.
 */
export async function reviewReplies(octokit: InstallationOctokit, owner: string, repo: string, pullNumber: number): Promise<ReplySnapshot[]> {
  const where = { owner, repo, pull_number: pullNumber, per_page: 100 };
  const reviews = (await octokit.paginate("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", where)) as ReviewListed[];
  const lineComments = (await octokit.paginate("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", where)) as ReviewCommentListed[];
  const fromReviews: ReplySnapshot[] = reviews.flatMap((r) =>
    // A pending review is not submitted yet; its author alone sees it.
    r.state === "PENDING" || !r.body?.trim() || !r.submitted_at
      ? []
      : [{ id: replyId("review", r.id), body: r.body, html_url: r.html_url, created_at: r.submitted_at, user: r.user, in: { kind: "review" as const } }],
  );
  const fromLines: ReplySnapshot[] = lineComments.map((c) => ({
    id: replyId("reviewComment", c.id),
    body: c.body,
    html_url: c.html_url,
    created_at: c.created_at,
    updated_at: c.updated_at,
    ...(c.node_id ? { node_id: c.node_id } : {}),
    user: c.user,
    in: { kind: "reviewComment", path: c.path, ...(c.line ? { line: c.line } : {}), ...(c.side === "LEFT" || c.side === "RIGHT" ? { side: c.side } : {}) },
  }));
  return [...fromReviews, ...fromLines];
}

/** Issue comments and review replies in the order they were written; issue comments keep their own order. */
export function inWrittenOrder(comments: readonly ReplySnapshot[], reviews: readonly ReplySnapshot[]): ReplySnapshot[] {
  if (reviews.length === 0) return [...comments];
  const merged = [...comments, ...reviews].map((reply, index) => ({ reply, index, at: Date.parse(reply.created_at) || 0 }));
  // Stable: equal times keep the issue comments first, in their id order.
  merged.sort((a, b) => a.at - b.at || a.index - b.index);
  return merged.map((m) => m.reply);
}
