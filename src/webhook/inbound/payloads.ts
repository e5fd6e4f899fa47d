import { z } from "zod";
import { acceptingPayloadsOf } from "../handledEvents.js";

/*
 * Each schema requires only what GitHub's webhook schemas (@octokit/openapi-webhooks) require of
 * every payload of the event, and accepts what they allow to be null or absent, so a delivery GitHub
 * could send is never refused as malformed: tsc checks each against @octokit/webhooks' payload types.
 */

/** `type` is required of a sender but not of a comment's or review's author. */
export const User = z.object({ login: z.string(), type: z.string().optional() });
/** What issues and pull requests share, and the loop reads of either. */
export const IssueFields = {
  number: z.number(),
  title: z.string(),
  body: z.string().nullable().optional(),
  html_url: z.string(),
  /** Not required on `issues.labeled` (and others). */
  state: z.string().optional(),
  assignees: z
    .array(z.object({ login: z.string() }).nullable())
    .nullable()
    .optional(),
  labels: z
    .array(z.union([z.object({ name: z.string() }), z.string()]))
    .nullable()
    .optional(),
  user: z.object({ login: z.string() }).nullable().optional(),
  node_id: z.string().optional(),
};
const Delivered = {
  installation: z.object({ id: z.number() }).optional(),
  repository: z.object({ full_name: z.string() }),
  sender: User,
};

/** On `issues.edited` and `pull_request.edited`: what the title or body said before. */
export const Changes = z.object({ body: z.object({ from: z.string() }).optional(), title: z.object({ from: z.string() }).optional() }).optional();

/** `issues.*` and `issue_comment.*`. */
export const IssuePayload = acceptingPayloadsOf<
  "issue_comment.created" | "issue_comment.edited" | "issue_comment.deleted" | "issues.labeled" | "issues.unlabeled" | "issues.closed" | "issues.edited"
>()(
  z.object({
    ...Delivered,
    action: z.string(),
    issue: z.object({ ...IssueFields, pull_request: z.unknown().optional() }),
    comment: z
      .object({ id: z.number(), body: z.string().nullable().optional(), html_url: z.string(), created_at: z.string(), user: User.nullable() })
      .optional(),
    label: z.object({ name: z.string() }).optional(),
    /** On `issues.edited`: what the title or body said before. */
    changes: Changes,
  }),
);

/** The `pull_request` events: the pull request stands in for its issue (they share the number). */
export const PullRequestPayload = acceptingPayloadsOf<"pull_request.labeled" | "pull_request.closed" | "pull_request.edited" | "pull_request.synchronize">()(
  z.object({
    ...Delivered,
    /** GitHub's schema does not require one of `pull_request.edited`. */
    sender: User.optional(),
    action: z.string(),
    pull_request: z.object({ ...IssueFields, updated_at: z.string(), head: z.object({ sha: z.string() }) }),
    label: z.object({ name: z.string() }).optional(),
    changes: Changes,
  }),
);

export const ReviewPayload = acceptingPayloadsOf<"pull_request_review.submitted">()(
  z.object({
    ...Delivered,
    pull_request: z.object(IssueFields),
    review: z.object({
      id: z.number(),
      body: z.string().nullable().optional(),
      html_url: z.string(),
      submitted_at: z.string().nullable().optional(),
      user: User.nullable(),
    }),
  }),
);

export const ReviewCommentPayload = acceptingPayloadsOf<"pull_request_review_comment.created">()(
  z.object({
    ...Delivered,
    pull_request: z.object(IssueFields),
    comment: z.object({
      id: z.number(),
      body: z.string(),
      html_url: z.string(),
      created_at: z.string(),
      user: User.nullable(),
      path: z.string(),
      line: z.number().nullable().optional(),
      side: z.string().optional(),
    }),
  }),
);
