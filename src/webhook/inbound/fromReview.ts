import { replyId } from "../../github/replyIds.js";
import { ReviewPayload } from "./payloads.js";
import { actorOf, envelopeOf, isBot, issueOf, parsePayload, type Mapped } from "./eventParts.js";

/** `pull_request_review.submitted` with a body: a reply written in a review. */
export function fromReview(payload: unknown, deliveryId: string, receivedAt: number): Mapped {
  if ((payload as { action?: unknown } | null)?.action !== "submitted") return undefined;
  const p = parsePayload(ReviewPayload, "pull_request_review", payload);
  const review = p.review;
  // An approval or a review of line comments only has no body: it says nothing to a question.
  if (!p.installation || !review.body?.trim() || !review.user || isBot(actorOf(review.user))) return undefined;
  return {
    kind: "comment",
    action: "created",
    ...envelopeOf(p, p.installation, issueOf(p.pull_request, true), deliveryId, receivedAt),
    comment: {
      id: replyId("review", review.id),
      body: review.body,
      url: review.html_url,
      createdAt: review.submitted_at ?? new Date(receivedAt).toISOString(),
      author: actorOf(review.user),
      in: { kind: "review" },
    },
  };
}
