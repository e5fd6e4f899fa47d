import { replyId } from "../../github/replyIds.js";
import { ReviewCommentPayload } from "./payloads.js";
import { actorOf, envelopeOf, isBot, issueOf, parsePayload, type Mapped } from "./eventParts.js";

/** `pull_request_review_comment.created`: a reply on a line of the pull request's diff. */
export function fromReviewComment(payload: unknown, deliveryId: string, receivedAt: number): Mapped {
  if ((payload as { action?: unknown } | null)?.action !== "created") return undefined;
  const p = parsePayload(ReviewCommentPayload, "pull_request_review_comment", payload);
  const c = p.comment;
  if (!p.installation || !c.user || isBot(actorOf(c.user))) return undefined;
  const side = c.side === "LEFT" || c.side === "RIGHT" ? c.side : undefined;
  return {
    kind: "comment",
    action: "created",
    ...envelopeOf(p, p.installation, issueOf(p.pull_request, true), deliveryId, receivedAt),
    comment: {
      id: replyId("reviewComment", c.id),
      body: c.body,
      url: c.html_url,
      createdAt: c.created_at,
      author: actorOf(c.user),
      in: { kind: "reviewComment", path: c.path, ...(c.line ? { line: c.line } : {}), ...(side ? { side } : {}) },
    },
  };
}
