import { ProtocolError } from "../errors.js";
import { meetsMinimum, permissionOf } from "../github/permissions.js";
import { parseAskComment, type Ask } from "../protocol/ask.js";
import { parseCommand } from "../protocol/commands.js";
import type { Gate } from "../gates/types.js";
import type { CommentEvent, InboundEvent } from "../queue/jobs.js";
import type { Services } from "../services.js";
import { answerGate } from "./answerGate.js";
import { dispatch } from "./dispatch.js";
import { sendFeedback, targetOf } from "./feedback.js";
import { openGate } from "./openGate.js";

/** Processes one recorded webhook event. Returns a short outcome for logs and tests. */
export async function handleInbound(services: Services, event: InboundEvent): Promise<string> {
  const ref = { repo: event.repo, issue: event.issue.number };
  await services.store.upsertIssue({
    ...ref,
    installationId: event.installationId,
    title: event.issue.title,
    body: event.issue.body,
    url: event.issue.url,
  });
  switch (event.kind) {
    case "closed":
      return closeIssue(services, event);
    case "labeled":
      if (!(await maySteer(services, event, event.sender.login, event.sender.type))) return "ignored: sender may not dispatch";
      return dispatch(services, event, event.sender.login);
    case "comment":
      return handleComment(services, event);
  }
}

async function handleComment(services: Services, event: CommentEvent): Promise<string> {
  const author = event.comment.author;
  const identity = await services.github.identity();
  const isAgent = author.login === identity.botLogin || services.config.agentLogins.includes(author.login.toLowerCase());
  if (isAgent) {
    const ask = readAsk(services, event);
    return ask ? openGate(services, event, ask) : "ignored: agent comment without a valid ask";
  }
  // Only the App or a configured agent may open a gate; a marker from anyone else is plain text.
  if (!(await maySteer(services, event, author.login, author.type))) return "ignored: author may not steer";
  const command = parseCommand(event.comment.body);
  if (command?.name === "agent") return dispatch(services, event, author.login, event.comment.id);
  const gate = await gateToAnswer(services, event);
  if (!gate) return "ignored: no open gate";
  if (command && command.name !== "answer") return `ignored: command /${command.name === "unknown" ? command.raw : command.name}`;
  return answerGate(services, event, gate);
}

/** Replies this close behind another human's answer are racing it, not starting a new discussion. */
const RACE_WINDOW_MS = 60_000;

/**
 * The gate a human comment answers: the open one, or the one another human answered moments ago,
 * so the second of two racing repliers is told who won instead of being silently ignored.
 */
async function gateToAnswer(services: Services, event: CommentEvent): Promise<Gate | undefined> {
  const ref = { repo: event.repo, issue: event.issue.number };
  const gate = await services.store.lastGate(ref);
  if (!gate) return undefined;
  if (gate.state === "open") return gate;
  const writtenAt = Date.parse(event.comment.createdAt) || event.receivedAt;
  const racing =
    gate.answeredAt !== undefined &&
    gate.answerCommentId !== event.comment.id &&
    gate.answeredBy?.toLowerCase() !== event.comment.author.login.toLowerCase() &&
    writtenAt - gate.answeredAt <= RACE_WINDOW_MS;
  return racing || gate.answerCommentId === event.comment.id ? gate : undefined;
}

function readAsk(services: Services, event: CommentEvent): Ask | undefined {
  try {
    return parseAskComment(event.comment.body);
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    services.log.warn({ repo: event.repo, issue: event.issue.number, comment: event.comment.id, err: error.message }, "malformed ask marker");
    return undefined;
  }
}

/** Bots never steer; humans need at least write permission on the repository. */
async function maySteer(services: Services, event: InboundEvent, login: string, type: string): Promise<boolean> {
  if (type === "Bot") return false;
  const octokit = await services.github.installation(event.installationId);
  const level = await permissionOf(octokit, services.store, event.repo, login, services.config.permissionCacheSeconds);
  const allowed = meetsMinimum(level, "write");
  if (!allowed) services.log.debug({ repo: event.repo, login, level }, "ignored: below write permission");
  return allowed;
}

async function closeIssue(services: Services, event: InboundEvent): Promise<string> {
  const issue = await services.store.getIssue({ repo: event.repo, issue: event.issue.number });
  if (!issue?.openGate) return "closed: nothing open";
  const cancelled = await services.store.cancelGate({ id: issue.openGate, repo: event.repo, issue: event.issue.number }, "the issue was closed");
  if (cancelled) {
    const gate = await services.store.getGate(issue.openGate);
    if (gate) services.events.notify("gate.closed", { gate, state: "cancelled", reason: "the issue was closed" });
    await sendFeedback(services, targetOf(event),
      [{ type: "removeLabel", label: services.config.labels.awaiting }],
      `issue closed by @${event.sender.login}: gate ${issue.openGate} cancelled, no resume`,
    );
  }
  return cancelled ? "closed: gate cancelled" : "closed: gate already settled";
}
