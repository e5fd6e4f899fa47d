import type { EmitterWebhookEvent, EmitterWebhookEventName } from "@octokit/webhooks";
import type { z } from "zod";

/**
 * The webhook deliveries the app acts on, named as @octokit/webhooks (and so Probot) names them.
 * A pull request's label and close arrive as `pull_request.*`, not `issues.*`; its reviews are replies too.
 */
export const HANDLED_EVENTS = [
  "issue_comment.created",
  "issue_comment.edited",
  "issue_comment.deleted",
  "issues.labeled",
  "issues.unlabeled",
  "issues.closed",
  "issues.edited",
  "pull_request.labeled",
  "pull_request.closed",
  "pull_request.edited",
  "pull_request.synchronize",
  "pull_request_review.submitted",
  "pull_request_review_comment.created",
] as const satisfies readonly EmitterWebhookEventName[];

export type HandledEvent = (typeof HANDLED_EVENTS)[number];

/** The `X-GitHub-Event` of a handled delivery: `issue_comment`, `issues`, `pull_request`, … */
export type HandledEventName = EmitterWebhookEvent<HandledEvent>["name"];

/**
 * Returns `schema` once tsc has checked that it accepts every payload GitHub's webhook types give
 * `E`: a field they leave absent or null cannot be required by it, so a delivery GitHub could send
 * is never refused as malformed. The schema still validates at run time; the types only claim.
 */
export function acceptingPayloadsOf<E extends HandledEvent>() {
  return <S extends z.ZodType>(
    schema: S & ([EmitterWebhookEvent<E>["payload"]] extends [z.input<S>] ? unknown : { "refuses a payload GitHub can send": E }),
  ): S => schema;
}
