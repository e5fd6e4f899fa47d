import { createHash } from "node:crypto";
import type { RepoSettings } from "../config/repoConfig.js";
import type { Ask, Gate } from "../domain.js";
import { ProtocolError } from "../errors.js";
import { parseAskComment } from "../protocol/ask.js";
import { parseCommand } from "../protocol/commands.js";
import type { CommentEvent, InboundEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { answerFromReply } from "./answerGate.js";
import { isApprovalGate, voteFromReply } from "./approvalGate.js";
import { runCommand } from "./commands.js";
import { commentDeleted, commentEdited } from "./commentChanges.js";
import { dispatch } from "./dispatch.js";
import { changedByAnother, foreignChange } from "./foreignChanges.js";
import { sendFeedback, targetOf } from "../status/feedback.js";
import { issueEdited } from "./issueBody.js";
import { titleEdited } from "./issueTitle.js";
import { openGate } from "./openGate.js";
import { labelTakenOff } from "./labelTakenOff.js";
import { maySteer } from "./maySteer.js";
import { answerSuperseded, commitsPushed, questionEdited } from "./staleQuestions.js";
import { combined, type Outcome } from "./outcome.js";
import { agentLogin } from "../github/agentLogins.js";

/**
 * Rebuilds the event's issue from GitHub, replaying its replies through handleInbound: the number of
 * changes made. Reconciliation's, given by the wiring (src/reconcile/inboundPath.ts), so gates never
 * import reconciliation.
 */
export type RebuildIssue = (event: InboundEvent, settings: RepoSettings) => Promise<number>;

/** Processes one recorded webhook event. Returns what it did (src/gates/outcome.ts). */
export async function handleInbound(services: Services, event: InboundEvent, rebuild: RebuildIssue): Promise<Outcome> {
  const ref = { repo: event.repo, issue: event.issue.number };
  // Whose words an edited body is, recorded before the payload's body is stored.
  const edited = event.kind === "edited" ? await issueEdited(services, event) : undefined;
  // And whose title it is (a title changed under a bot's name is not taken).
  const titled = event.kind === "edited" ? await titleEdited(services, event) : undefined;
  await services.issues.upsertIssue({
    ...ref,
    installationId: event.installationId,
    title: event.issue.title,
    body: event.issue.body,
    url: event.issue.url,
    author: event.issue.author,
    assignees: event.issue.assignees,
    state: event.issue.state,
  });
  const { settings, problem } = await services.settings(event.installationId, event.repo);
  if (problem) await reportConfigProblem(services, event, problem);
  switch (event.kind) {
    case "closed":
      return closeIssue(services, event, settings);
    case "edited":
      return combined([titled, edited], edited ?? { kind: "ignored", reason: "not an edit" });
    case "labeled":
      if (event.label.toLowerCase() !== settings.labels.dispatch.toLowerCase()) return { kind: "ignored", reason: "other label" };
      if (!(await maySteer(services, event, event.sender.login, event.sender.type, settings))) return { kind: "ignored", reason: "sender may not dispatch" };
      return dispatch(services, event, event.sender.login);
    case "unlabeled":
      return labelTakenOff(services, event, settings);
    case "comment":
      return handleComment(services, event, settings, rebuild);
    case "pushed":
      return commitsPushed(services, event, settings);
  }
}

async function handleComment(services: Services, event: CommentEvent, settings: RepoSettings, rebuild: RebuildIssue): Promise<Outcome> {
  const author = event.comment.author;
  // A withdrawn answer that reopened its gate: the replies after the question are read again as a
  // rebuild reads them (GitHub no longer has the deleted one), so the next answer given is taken.
  const readAgain = async (): Promise<Outcome> => ({ kind: "repliesReadAgain", changes: await rebuild(event, settings) });
  if (event.action === "deleted") return commentDeleted(services, event, settings, readAgain);
  const identity = await services.github.identity();
  const isAgent = agentLogin(identity.botLogin, services.config.agentLogins)(author.login);
  if (isAgent) {
    // Asks are issue comments; an agent's review says nothing the loop reads.
    if (event.comment.in) return { kind: "ignored", reason: "agent review" };
    if (event.action === "edited") return questionEdited(services, event, settings);
    const ask = readAsk(services, event);
    if (!ask) return { kind: "ignored", reason: "agent comment without a valid ask" };
    const opened = await openGate(services, event, ask, settings);
    return opened.kind === "gateOpened" ? combined([opened, ...(await readEarlyReplies(services, event, rebuild))], opened) : opened;
  }
  // Only its author revises what a comment said; anyone else's edit leaves it as they wrote it.
  if (event.action === "edited" && changedByAnother(event)) return foreignChange(services, event);
  // Only the App or a configured agent may open a gate; a marker from anyone else is plain text.
  if (!(await maySteer(services, event, author.login, author.type, settings))) return { kind: "ignored", reason: "author may not steer" };
  if (event.action === "edited") return commentEdited(services, event, readAgain);
  const command = parseCommand(event.comment.body);
  // Commands are read in issue comments only: their acknowledgements react to the command's comment.
  if (command && command.name !== "answer")
    return event.comment.in ? { kind: "ignored", reason: "a command in a review" } : runCommand(services, event, command, settings);
  const answer = async (): Promise<Outcome | undefined> => {
    const gate = await gateToAnswer(services, event);
    if (!gate) return undefined;
    return isApprovalGate(gate) ? voteFromReply(services, event, gate, settings) : answerFromReply(services, event, gate);
  };
  const answered = await answer();
  if (answered) return answered;
  const last = await services.gates.lastGate({ repo: event.repo, issue: event.issue.number });
  if (last?.state === "superseded" && last.answers.length === 0) {
    const outcome = await answerSuperseded(services, event, last);
    if (outcome) return outcome;
  }
  if (event.issue.labels.some((l) => l.toLowerCase() === settings.labels.awaiting.toLowerCase()) && !last) {
    // GitHub says a question is waiting but Redis knows none (it was wiped): rebuild this issue now,
    // which replays this reply too, instead of waiting for the next scheduled reconciliation.
    return { kind: "rebuilt", changes: await rebuild(event, settings) };
  }
  // The question may be on its way: deliveries are handled many at once and GitHub does not promise
  // their order, so a reply can be handled before the question it answers. Noted, it is read when
  // that question opens (readEarlyReplies); one that opened meanwhile missed the note: read it now.
  await services.commentMarks.noteEarlyReply({ repo: event.repo, issue: event.issue.number }, event.deliveryId, writtenAt(event));
  return (await answer()) ?? { kind: "ignored", reason: "no open gate" };
}

/** When a comment was written: GitHub's timestamp (whole seconds), else when its delivery came. */
const writtenAt = (event: CommentEvent) => Date.parse(event.comment.createdAt) || event.receivedAt;

/**
 * The question just opened: the replies handled before it (noted by handleComment) that were
 * written after it are read now, each through the whole path, from its delivery's job (a withdrawn
 * one is gone from there, and so is not read).
 */
async function readEarlyReplies(services: Services, question: CommentEvent, rebuild: RebuildIssue): Promise<Outcome[]> {
  const deliveries = await services.commentMarks.earlyReplies({ repo: question.repo, issue: question.issue.number }, writtenAt(question));
  const outcomes: Outcome[] = [];
  for (const deliveryId of deliveries) {
    const reply = await services.queues.deliveredEvent(deliveryId);
    if (reply?.kind === "comment") outcomes.push(await handleInbound(services, reply, rebuild));
  }
  return outcomes;
}

/** Replies this close behind another human's answer are racing it, not starting a new discussion. */
const RACE_WINDOW_MS = 60_000;

/**
 * The gate a human comment answers: the open one, or the one another human answered moments ago,
 * so the second of two racing repliers is told who won instead of being silently ignored.
 */
async function gateToAnswer(services: Pick<Services, "gates">, event: CommentEvent): Promise<Gate | undefined> {
  const gate = await services.gates.lastGate({ repo: event.repo, issue: event.issue.number });
  if (!gate) return undefined;
  if (gate.state === "open" || gate.answerCommentId === event.comment.id) return gate;
  const racing =
    gate.answeredAt !== undefined &&
    gate.answeredBy !== "escalation" &&
    gate.answeredBy?.toLowerCase() !== event.comment.author.login.toLowerCase() &&
    writtenAt(event) - gate.answeredAt <= RACE_WINDOW_MS;
  return racing ? gate : undefined;
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

/** Closing the issue cancels its open gate and stops its agent; reopening resumes nothing. */
async function closeIssue(services: Services, event: InboundEvent, settings: RepoSettings): Promise<Outcome> {
  await services.agents.requestStop(event.repo, event.issue.number, event.sender.login, "issue-closed");
  const issue = await services.issues.getIssue({ repo: event.repo, issue: event.issue.number });
  if (!issue?.openGate) return { kind: "issueClosed", gate: "none open" };
  const gate = await services.gates.getGate(issue.openGate);
  const cancelled = gate ? await services.gates.cancelGate(gate, "the issue was closed") : false;
  if (gate && cancelled) {
    services.events.notify("gate.closed", { gate, state: "cancelled", reason: "the issue was closed" });
    await sendFeedback(services, targetOf(event), {
      ops: [{ type: "removeLabel", label: settings.labels.awaiting }],
      line: `issue closed by @${event.sender.login}: gate ${gate.id} cancelled, no resume`,
    });
  }
  return { kind: "issueClosed", gate: cancelled ? "cancelled" : "already settled" };
}

/** An invalid `.github/escalation.yml` gets one comment naming the problem; the defaults apply meanwhile. */
async function reportConfigProblem(services: Services, event: InboundEvent, problem: string): Promise<void> {
  const digest = createHash("sha256").update(problem).digest("hex").slice(0, 16);
  if (!(await services.commentMarks.firstTime(`config:${event.repo.toLowerCase()}:${digest}`))) return;
  services.log.warn({ repo: event.repo, problem }, "invalid repository configuration");
  await sendFeedback(services, targetOf(event), {
    ops: [{ type: "comment", body: `⚠️ \`.github/escalation.yml\` is invalid, so the defaults apply until it is fixed: ${problem}` }],
  });
}
