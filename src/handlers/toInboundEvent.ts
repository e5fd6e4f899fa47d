import { z } from "zod";
import { ProtocolError, describeIssues } from "../errors.js";
import { findMarker, hasMarker } from "../protocol/marker.js";
import { InboundEventSchema, type InboundEvent } from "../queue/jobs.js";

const User = z.object({ login: z.string(), type: z.string() });
/** What issues and pull requests share, and the loop reads of either. */
const IssueFields = {
  number: z.number(),
  title: z.string(),
  body: z.string().nullable().optional(),
  html_url: z.string(),
  state: z.string(),
  assignees: z.array(z.object({ login: z.string() })).nullable().optional(),
  labels: z.array(z.union([z.object({ name: z.string() }), z.string()])).nullable().optional(),
  user: z.object({ login: z.string() }).nullable().optional(),
};
const Delivered = {
  installation: z.object({ id: z.number() }).optional(),
  repository: z.object({ full_name: z.string() }),
  sender: User,
};
const Payload = z.object({
  ...Delivered,
  action: z.string(),
  issue: z.object({ ...IssueFields, pull_request: z.unknown().optional() }),
  comment: z
    .object({ id: z.number(), body: z.string().nullable().optional(), html_url: z.string(), created_at: z.string(), user: User })
    .optional(),
  label: z.object({ name: z.string() }).optional(),
});

/** `pull_request.synchronize`: the pull request stands in for its issue (they share the number). */
const PullRequestPayload = z.object({
  ...Delivered,
  pull_request: z.object({ ...IssueFields, updated_at: z.string(), head: z.object({ sha: z.string() }) }),
});

/** The loop's view of an issue or a pull request. */
function issueOf(issue: z.infer<z.ZodObject<typeof IssueFields>>, isPullRequest: boolean): InboundEvent["issue"] {
  return {
    number: issue.number,
    title: issue.title,
    body: issue.body ?? "",
    url: issue.html_url,
    ...(issue.user ? { author: issue.user.login } : {}),
    state: issue.state,
    isPullRequest,
    assignees: (issue.assignees ?? []).slice(0, 10).map((a) => a.login),
    labels: (issue.labels ?? []).slice(0, 100).map((l) => (typeof l === "string" ? l : l.name)),
  };
}

function toPushedEvent(payload: unknown, deliveryId: string, receivedAt: number): InboundEvent | undefined {
  if ((payload as { action?: unknown } | null)?.action !== "synchronize") return undefined; // the one pull_request action the app acts on
  const parsed = PullRequestPayload.safeParse(payload);
  if (!parsed.success) throw new ProtocolError(`Unexpected pull_request payload: ${describeIssues(parsed.error.issues)}`);
  const p = parsed.data;
  if (!p.installation) return undefined;
  const pr = p.pull_request;
  return {
    kind: "pushed",
    deliveryId,
    installationId: p.installation.id,
    repo: p.repository.full_name,
    issue: issueOf(pr, true),
    sender: p.sender,
    receivedAt,
    headSha: pr.head.sha,
    // When GitHub recorded the push; a webhook may arrive late, after a question asked since.
    pushedAt: Date.parse(pr.updated_at) || receivedAt,
  };
}

/**
 * Narrows a webhook payload to the fields the loop uses, validated, or returns undefined for
 * events the app ignores. Throws ProtocolError for a payload that does not have GitHub's shape.
 */
export function toInboundEvent(
  name: string,
  payload: unknown,
  deliveryId: string,
  receivedAt = Date.now(),
): InboundEvent | undefined {
  if (name === "pull_request") {
    const event = toPushedEvent(payload, deliveryId, receivedAt);
    if (!event) return undefined;
    const checked = InboundEventSchema.safeParse(event);
    if (!checked.success) throw new ProtocolError(`Rejected ${name} event: ${describeIssues(checked.error.issues)}`);
    return checked.data;
  }
  const parsed = Payload.safeParse(payload);
  if (!parsed.success) throw new ProtocolError(`Unexpected ${name} payload: ${describeIssues(parsed.error.issues)}`);
  const p = parsed.data;
  if (!p.installation) return undefined; // not delivered to an installed App: nothing we can act on
  const common = {
    deliveryId,
    installationId: p.installation.id,
    repo: p.repository.full_name,
    issue: issueOf(p.issue, p.issue.pull_request !== undefined && p.issue.pull_request !== null),
    sender: p.sender,
    receivedAt,
  };
  let event: InboundEvent | undefined;
  if (name === "issue_comment" && p.comment && (p.action === "created" || p.action === "edited" || p.action === "deleted")) {
    // A deletion needs only the comment's id: its text (perhaps why it was deleted) is not kept.
    const body = p.action === "deleted" ? "" : (p.comment.body ?? "");
    // Bots never answer or command; of their comments only asks (which carry a marker) matter. The
    // app's own status comment, created and edited on every transition, carries only a status
    // marker: dropping it here spares a queued job per edit that the loop would ignore anyway.
    if (p.comment.user.type === "Bot" && p.action !== "deleted" && (!hasMarker(body) || isStatusOnly(body))) return undefined;
    event = {
      kind: "comment",
      action: p.action,
      ...common,
      comment: { id: p.comment.id, body, url: p.comment.html_url, createdAt: p.comment.created_at, author: p.comment.user },
    };
  } else if (name === "issues" && p.action === "labeled" && p.label) {
    // A bot may not dispatch (maySteer), so a bot's label — the app's own awaiting label, on every
    // ask — is dropped here rather than queued. Which label dispatches is per-repository
    // configuration, decided by the worker.
    if (isBot(p.sender)) return undefined;
    event = { kind: "labeled", label: p.label.name, ...common };
  } else if (name === "issues" && p.action === "closed") {
    event = { kind: "closed", ...common };
  }
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
 * A status comment's or reminder's body: a readable status or ladder marker and nothing that looks
 * like an ask marker (a broken ask is kept, so the loop can report it).
 */
function isStatusOnly(body: string): boolean {
  try {
    return !body.includes("escalation:ask") && (findMarker(body, "status") !== undefined || findMarker(body, "ladder") !== undefined);
  } catch {
    return false;
  }
}
