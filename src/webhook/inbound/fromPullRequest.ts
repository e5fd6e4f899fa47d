import { PullRequestPayload } from "./payloads.js";
import { editedFields, envelopeOf, isBot, issueOf, parsePayload, type Mapped } from "./eventParts.js";

/** `pull_request.*`: each action the app acts on is its issue counterpart's (labeled, closed, edited), plus new commits. */
export function fromPullRequest(payload: unknown, deliveryId: string, receivedAt: number): Mapped {
  const action = (payload as { action?: unknown } | null)?.action;
  if (action !== "synchronize" && action !== "labeled" && action !== "closed" && action !== "edited") return undefined;
  const p = parsePayload(PullRequestPayload, "pull_request", payload);
  // An edit by nobody named cannot be judged by who made it (src/gates/issueBody.ts): nothing to act on.
  if (!p.installation || !p.sender) return undefined;
  const pr = p.pull_request;
  const common = envelopeOf({ ...p, sender: p.sender }, p.installation, issueOf(pr, true), deliveryId, receivedAt);
  if (action === "labeled") return p.label && !isBot(common.sender) ? { kind: "labeled", label: p.label.name, ...common } : undefined;
  if (action === "closed") return { kind: "closed", ...common };
  // Its body is the task's description, as an issue's: an edit is judged by who made it (src/gates/issueBody.ts).
  if (action === "edited") return { kind: "edited", ...common, ...editedFields(p.changes) };
  // When GitHub recorded the push; a webhook may arrive late, after a question asked since.
  return { kind: "pushed", ...common, headSha: pr.head.sha, pushedAt: Date.parse(pr.updated_at) || receivedAt };
}
