/** The pieces every mapping of a payload to an InboundEvent shares. */
import type { z } from "zod";
import { ProtocolError, describeIssues } from "../../errors.js";
import type { InboundEvent } from "../../payloads.js";
import type { Changes, IssueFields, User } from "./payloads.js";

/** The loop's view of an issue or a pull request. */
export function issueOf(issue: z.infer<z.ZodObject<typeof IssueFields>>, isPullRequest: boolean): InboundEvent["issue"] {
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
export function actorOf(user: z.infer<typeof User>): { login: string; type: string } {
  return { login: user.login, type: user.type ?? "User" };
}

export function parsePayload<T extends z.ZodTypeAny>(schema: T, name: string, payload: unknown): z.infer<T> {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw new ProtocolError(`Unexpected ${name} payload: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

export type Mapped = InboundEvent | undefined;

/** What every event carries: the delivery, the installation and repository, the issue, who acted. */
export function envelopeOf(
  p: { repository: { full_name: string }; sender: z.infer<typeof User> },
  installation: { id: number },
  issue: InboundEvent["issue"],
  deliveryId: string,
  receivedAt: number,
) {
  return { deliveryId, installationId: installation.id, repo: p.repository.full_name, issue, sender: actorOf(p.sender), receivedAt };
}

/** What an edit changed: the body's and the title's earlier text, each only when it changed. */
export function editedFields(changes: z.infer<typeof Changes>): { previousBody?: string; previousTitle?: string } {
  return { ...(changes?.body ? { previousBody: changes.body.from } : {}), ...(changes?.title ? { previousTitle: changes.title.from } : {}) };
}

/** The same rule as maySteer: bots never steer. */
export function isBot(user: { login: string; type: string }): boolean {
  return user.type === "Bot" || user.login.endsWith("[bot]");
}
