import { z } from "zod";
import { ProtocolError, describeIssues } from "../errors.js";
import { replyId } from "../github/replyIds.js";
import { findMarker, hasMarker } from "../protocol/marker.js";
import { InboundEventSchema, type InboundEvent } from "../queue/jobs.js";
import { acceptingPayloadsOf, type HandledEventName } from "./handledEvents.js";

/*
 * Each schema requires only what GitHub's webhook schemas (@octokit/openapi-webhooks) require of
 * every payload of the event, and accepts what they allow to be null or absent, so a delivery GitHub
 * could send is never refused as malformed: tsc checks each against @octokit/webhooks' payload types.
 */

/** `type` is required of a sender but not of a comment's or review's author. */
const User = z.object({ login: z.string(), type: z.string().optional() });
/** What issues and pull requests share, and the loop reads of either. */
const IssueFields = {
  number: z.number(),
  title: z.string(),
  body: z.string().nullable().optional(),
  html_url: z.string(),
  /** Not required on `issues.labeled` (and others). */
  state: z.string().optional(),
  assignees: z.array(z.object({ login: z.string() }).nullable()).nullable().optional(),
  labels: z.array(z.union([z.object({ name: z.string() }), z.string()])).nullable().optional(),
  user: z.object({ login: z.string() }).nullable().optional(),
  node_id: z.string().optional(),
};
const Delivered = {
  installation: z.object({ id: z.number() }).optional(),
  repository: z.object({ full_name: z.string() }),
  sender: User,
};
/** On `issues.edited` and `pull_request.edited`: what the title or body said before. */
const Changes = z.object({ body: z.object({ from: z.string() }).optional(), title: z.object({ from: z.string() }).optional() }).optional();
const Payload = acceptingPayloadsOf<"issue_comment.created" | "issue_comment.edited" | "issue_comment.deleted" | "issues.labeled" | "issues.unlabeled" | "issues.closed" | "issues.edited">()(z.object({
  ...Delivered,
  action: z.string(),
  issue: z.object({ ...IssueFields, pull_request: z.unknown().optional() }),
  comment: z
    .object({ id: z.number(), body: z.string().nullable().optional(), html_url: z.string(), created_at: z.string(), user: User.nullable() })
    .optional(),
  label: z.object({ name: z.string() }).optional(),
  /** On `issues.edited`: what the title or body said before. */
  changes: Changes,
}));

/** The `pull_request` events: the pull request stands in for its issue (they share the number). */
const PullRequestPayload = acceptingPayloadsOf<"pull_request.labeled" | "pull_request.closed" | "pull_request.edited" | "pull_request.synchronize">()(z.object({
  ...Delivered,
  /** GitHub's schema does not require one of `pull_request.edited`. */
  sender: User.optional(),
  action: z.string(),
  pull_request: z.object({ ...IssueFields, updated_at: z.string(), head: z.object({ sha: z.string() }) }),
  label: z.object({ name: z.string() }).optional(),
  changes: Changes,
}));

const ReviewPayload = acceptingPayloadsOf<"pull_request_review.submitted">()(z.object({
  ...Delivered,
  pull_request: z.object(IssueFields),
  review: z.object({ id: z.number(), body: z.string().nullable().optional(), html_url: z.string(), submitted_at: z.string().nullable().optional(), user: User.nullable() }),
}));

const ReviewCommentPayload = acceptingPayloadsOf<"pull_request_review_comment.created">()(z.object({
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
}));

/** The loop's view of an issue or a pull request. */
function issueOf(issue: z.infer<z.ZodObject<typeof IssueFields>>, isPullRequest: boolean): InboundEvent["issue"] {
  return {
    number: issue.number,
    title: issue.title,
    body: issue.body ?? "",
    url: issue.html_url,
    ...(issue.user ? { author: issue.user.login } : {}),
    ...(issue.node_id ? { nodeId: issue.node_id } : {}),
    ...(issue.state !== undefined ? { state: issue.state } : {}),
    isPullRequest,
    assignees: (issue.assignees ?? []).flatMap((a) => (a ? [a.login] : [])).slice(0, 10),
    labels: (issue.labels ?? []).slice(0, 100).map((l) => (typeof l === "string" ? l : l.name)),
  };
}

/**
 * A user as the loop sees one. GitHub may leave out the type of a comment's author: such a user is
 * judged by login (a bot's ends in "[bot]") and permission, like a person.
 */
function actorOf(user: z.infer<typeof User>): { login: string; type: string } {
  return { login: user.login, type: user.type ?? "User" };
}

function parse<T extends z.ZodTypeAny>(schema: T, name: string, payload: unknown): z.infer<T> {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw new ProtocolError(`Unexpected ${name} payload: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

type Mapped = InboundEvent | undefined;

/** What every event carries: the delivery, the installation and repository, the issue, who acted. */
function envelopeOf(
  p: { repository: { full_name: string }; sender: z.infer<typeof User> },
  installation: { id: number },
  issue: InboundEvent["issue"],
  deliveryId: string,
  receivedAt: number,
) {
  return { deliveryId, installationId: installation.id, repo: p.repository.full_name, issue, sender: actorOf(p.sender), receivedAt };
}

/** What an edit changed: the body's and the title's earlier text, each only when it changed. */
function editedFields(changes: z.infer<typeof Changes>): { previousBody?: string; previousTitle?: string } {
  return { ...(changes?.body ? { previousBody: changes.body.from } : {}), ...(changes?.title ? { previousTitle: changes.title.from } : {}) };
}

/** `pull_request.*`: each action the app acts on is its issue counterpart's (labeled, closed, edited), plus new commits. */
function fromPullRequest(payload: unknown, deliveryId: string, receivedAt: number): Mapped {
  const action = (payload as { action?: unknown } | null)?.action;
  if (action !== "synchronize" && action !== "labeled" && action !== "closed" && action !== "edited") return undefined;
  const p = parse(PullRequestPayload, "pull_request", payload);
  // An edit by nobody named cannot be judged by who made it (src/loop/issueBody.ts): nothing to act on.
  if (!p.installation || !p.sender) return undefined;
  const pr = p.pull_request;
  const common = envelopeOf({ ...p, sender: p.sender }, p.installation, issueOf(pr, true), deliveryId, receivedAt);
  if (action === "labeled") return p.label && !isBot(common.sender) ? { kind: "labeled", label: p.label.name, ...common } : undefined;
  if (action === "closed") return { kind: "closed", ...common };
  // Its body is the task's description, as an issue's: an edit is judged by who made it (src/loop/issueBody.ts).
  if (action === "edited") return { kind: "edited", ...common, ...editedFields(p.changes) };
  // When GitHub recorded the push; a webhook may arrive late, after a question asked since.
  return { kind: "pushed", ...common, headSha: pr.head.sha, pushedAt: Date.parse(pr.updated_at) || receivedAt };
}

/** `pull_request_review.submitted` with a body: a reply written in a review. */
function fromReview(payload: unknown, deliveryId: string, receivedAt: number): Mapped {
  if ((payload as { action?: unknown } | null)?.action !== "submitted") return undefined;
  const p = parse(ReviewPayload, "pull_request_review", payload);
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

/** `pull_request_review_comment.created`: a reply on a line of the pull request's diff. */
function fromReviewComment(payload: unknown, deliveryId: string, receivedAt: number): Mapped {
  if ((payload as { action?: unknown } | null)?.action !== "created") return undefined;
  const p = parse(ReviewCommentPayload, "pull_request_review_comment", payload);
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

/** `issues.*` and `issue_comment.*`. */
function fromIssue(name: "issues" | "issue_comment", payload: unknown, deliveryId: string, receivedAt: number): Mapped {
  const p = parse(Payload, name, payload);
  if (!p.installation) return undefined; // not delivered to an installed App: nothing we can act on
  const common = envelopeOf(p, p.installation, issueOf(p.issue, p.issue.pull_request !== undefined && p.issue.pull_request !== null), deliveryId, receivedAt);
  if (name === "issue_comment" && p.comment && (p.action === "created" || p.action === "edited" || p.action === "deleted")) {
    // A deletion needs only the comment's id: its text (perhaps why it was deleted) is not kept.
    const body = p.action === "deleted" ? "" : (p.comment.body ?? "");
    // A deleted account's comment has no user: nobody who may steer, so only its deletion matters.
    const author = p.comment.user ? actorOf(p.comment.user) : undefined;
    if (!author && p.action !== "deleted") return undefined;
    // Bots never answer or command; of their comments only asks (which carry a marker) matter. The
    // app's own status comment, created and edited on every transition, carries only a status
    // marker: dropping it here spares a queued job per edit that the loop would ignore anyway.
    if (author?.type === "Bot" && p.action !== "deleted" && (!hasMarker(body) || isStatusOnly(body))) return undefined;
    return {
      kind: "comment",
      action: p.action,
      ...common,
      comment: { id: p.comment.id, body, url: p.comment.html_url, createdAt: p.comment.created_at, author: author ?? { login: "ghost", type: "User" } },
    };
  }
  if (name === "issues" && p.action === "labeled" && p.label) {
    // A bot may not dispatch (maySteer), so a bot's label — the app's own awaiting label, on every
    // ask — is dropped here rather than queued. Which label dispatches is per-repository
    // configuration, decided by the worker.
    return isBot(common.sender) ? undefined : { kind: "labeled", label: p.label.name, ...common };
  }
  if (name === "issues" && p.action === "unlabeled" && p.label) {
    // Only a bot's: the agent acts as the App's bot and may take the awaiting label off a question
    // that still waits (the worker puts it back). A person's choice to take a label off stands.
    return isBot(common.sender) ? { kind: "unlabeled", label: p.label.name, ...common } : undefined;
  }
  if (name === "issues" && p.action === "closed") return { kind: "closed", ...common };
  // Anyone's edit, bots' included: whether the body stays its author's words is the loop's decision.
  if (name === "issues" && p.action === "edited") return { kind: "edited", ...common, ...editedFields(p.changes) };
  return undefined;
}

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

/** The same rule as maySteer: bots never steer. */
function isBot(user: { login: string; type: string }): boolean {
  return user.type === "Bot" || user.login.endsWith("[bot]");
}

/**
 * A status comment's, reminder's or notice's body: a readable marker of the app's state and nothing that looks
 * like an ask marker (a broken ask is kept, so the loop can report it).
 */
function isStatusOnly(body: string): boolean {
  try {
    return !body.includes("escalation:ask") && (["status", "ladder", "notice"] as const).some((kind) => findMarker(body, kind) !== undefined);
  } catch {
    return false;
  }
}
