import type { RepoSettings } from "../config/repoConfig.js";
import type { Ask } from "../domain.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { answerersFor } from "./answerers.js";
import { approvalRule, isApprovalGate } from "./approvalGate.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";
import type { Outcome } from "./outcome.js";
import { scheduleLadder } from "./reminderLadder.js";
import { scheduleTimeout } from "./timeouts.js";

/** What opening a gate touches: the issue's round and gates, its timeout and ladder jobs, the observers, the issue's feedback. */
export type OpenGatePorts = FeedbackPorts &
  Pick<Services, "codeowners" | "events"> & {
    rounds: Pick<Services["rounds"], "currentRound">;
    gates: Pick<Services["gates"], "openGate" | "getGate">;
    queues: Pick<Services["queues"], "addTimeout" | "addLadderStep">;
    log: Pick<Services["log"], "info">;
  };

/** An agent's ask comment arrived: record the gate, schedule its timeout, then label and acknowledge it. */
export async function openGate(services: OpenGatePorts, event: CommentEvent, ask: Ask, settings: RepoSettings): Promise<Outcome> {
  const ref = { repo: event.repo, issue: event.issue.number };
  const round = await services.rounds.currentRound(ref);
  const { opened, superseded } = await services.gates.openGate({
    id: String(event.comment.id),
    repo: event.repo,
    issue: event.issue.number,
    installationId: event.installationId,
    round,
    ask,
    askedAt: Date.parse(event.comment.createdAt) || event.receivedAt,
    askedBy: event.comment.author.login,
    askUrl: event.comment.url,
    answerers: await answerersFor(services, event.installationId, event.repo, ask, settings),
    ...(isApprovalGate({ ask }) ? { approvalRule: approvalRule(ask, settings) } : {}),
  });
  if (!opened) return { kind: "gateAlreadyOpen", gateId: String(event.comment.id) };
  const gate = await services.gates.getGate(String(event.comment.id));
  if (gate) {
    services.events.notify("gate.opened", { gate });
    await scheduleTimeout(services, gate, settings.defaultTimeoutSeconds);
    await scheduleLadder(services, gate, settings.reminderLadder);
  }
  const old = superseded ? await services.gates.getGate(superseded) : undefined;
  if (old) services.events.notify("gate.closed", { gate: old, state: "superseded", reason: "a newer question was asked" });
  const count = ask.questions.length;
  // The label is the one write of an opened gate (it says the question is registered and waiting);
  // the feedback worker skips it when the app's label is still on. The status line only rides
  // along with the next render, unless it tells of a replaced question.
  await sendFeedback(services, targetOf(event), {
    ops: [{ type: "addLabel", label: settings.labels.awaiting }],
    line: `round ${round}: the agent asked ${count === 1 ? "a question" : `${count} questions`} ([gate ${event.comment.id}](${event.comment.url}))${superseded ? `, replacing unanswered gate ${superseded}` : ""}; waiting for a human answer`,
    key: `gate-open-${event.comment.id}`,
    quiet: !superseded,
  });
  services.log.info({ repo: event.repo, issue: event.issue.number, gate: event.comment.id, round }, "gate opened");
  return { kind: "gateOpened", gateId: String(event.comment.id) };
}
