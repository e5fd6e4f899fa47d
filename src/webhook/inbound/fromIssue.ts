import { hasMarker } from "../../protocol/marker.js";
import { IssuePayload } from "./payloads.js";
import { actorOf, editedFields, envelopeOf, isBot, issueOf, parsePayload, type Mapped } from "./eventParts.js";
import { isStatusOnly } from "./isStatusOnly.js";

/** `issues.*` and `issue_comment.*`. */
export function fromIssue(name: "issues" | "issue_comment", payload: unknown, deliveryId: string, receivedAt: number): Mapped {
  const p = parsePayload(IssuePayload, name, payload);
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
