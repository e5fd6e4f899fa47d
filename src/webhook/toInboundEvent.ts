import { ProtocolError, describeIssues } from "../errors.js";
import { InboundEventSchema, type InboundEvent } from "../payloads.js";
import type { HandledEventName } from "./handledEvents.js";
import { fromIssue } from "./inbound/fromIssue.js";
import { fromPullRequest } from "./inbound/fromPullRequest.js";
import { fromReview } from "./inbound/fromReview.js";
import { fromReviewComment } from "./inbound/fromReviewComment.js";

/**
 * Narrows a webhook payload to the fields the loop uses, validated, or returns undefined for
 * events the app ignores. Throws ProtocolError for a payload that does not have GitHub's shape.
 */
export function toInboundEvent(name: HandledEventName, payload: unknown, deliveryId: string, receivedAt = Date.now()): InboundEvent | undefined {
  const event =
    name === "pull_request"
      ? fromPullRequest(payload, deliveryId, receivedAt)
      : name === "pull_request_review"
        ? fromReview(payload, deliveryId, receivedAt)
        : name === "pull_request_review_comment"
          ? fromReviewComment(payload, deliveryId, receivedAt)
          : fromIssue(name, payload, deliveryId, receivedAt);
  if (!event) return undefined;
  const checked = InboundEventSchema.safeParse(event);
  if (!checked.success) throw new ProtocolError(`Rejected ${name} event: ${describeIssues(checked.error.issues)}`);
  return checked.data;
}
