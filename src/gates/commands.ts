import type { RepoSettings } from "../config/repoConfig.js";
import { CORRECTION_KIND, type Gate } from "../domain.js";
import { newAskId } from "../protocol/ask.js";
import type { Command } from "../protocol/commands.js";
import { formatDuration } from "../protocol/duration.js";
import { tally, tallyLine } from "../protocol/approval.js";
import { readingSummary } from "../protocol/echo.js";
import { HELP_TEXT } from "../protocol/help.js";
import { parseReply } from "../protocol/reply.js";
import { jobIds } from "../jobs/names.js";
import type { CommentEvent } from "../jobs/payloads.js";
import type { Services } from "../services.js";
import { answerFromReply, applyAnswers, defaultAnswers } from "./answerGate.js";
import { refusedAnswer, whoCanAnswer } from "./answerers.js";
import { approvalRule, isApprovalGate, voteFromReply, type VotePorts } from "./approvalGate.js";
import { dispatch, type DispatchPorts } from "./dispatch.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";
import type { Outcome } from "./outcome.js";

/** What the commands touch: answers and votes, dispatches, notes, the running agent, and the gates they open, cancel or describe. */
export type CommandPorts = VotePorts &
  DispatchPorts &
  Pick<Services, "agents"> & {
    gates: Pick<Services["gates"], "lastGate" | "cancelGate" | "openGate" | "votes">;
    notes: Pick<Services["notes"], "addNote" | "reviseNote" | "notes">;
    rounds: Pick<Services["rounds"], "currentRound">;
  };

type Handler = (services: CommandPorts, event: CommentEvent, args: string, settings: RepoSettings) => Promise<Outcome>;

const reply = (services: FeedbackPorts, event: CommentEvent, body: string, statusLine?: string) =>
  sendFeedback(services, targetOf(event), [{ type: "comment", body }], statusLine, `reply-${event.comment.id}`);

async function openGateOf(services: { gates: Pick<Services["gates"], "lastGate"> }, event: CommentEvent): Promise<Gate | undefined> {
  const gate = await services.gates.lastGate({ repo: event.repo, issue: event.issue.number });
  return gate?.state === "open" ? gate : undefined;
}

const at = (event: CommentEvent) => Date.parse(event.comment.createdAt) || event.receivedAt;

const HANDLERS: Record<Exclude<Command["name"], "unknown">, Handler> = {
  agent: (services, event) => dispatch(services, event, event.comment.author.login, event.comment.id),

  answer: async (services, event, _args, settings) => {
    const gate = await openGateOf(services, event);
    if (!gate) return { kind: "ignored", reason: "/answer without an open gate" };
    return isApprovalGate(gate) ? voteFromReply(services, event, gate, settings) : answerFromReply(services, event, gate);
  },

  defaults: async (services, event) => {
    const gate = await openGateOf(services, event);
    if (!gate) return { kind: "ignored", reason: "/defaults without an open gate" };
    const refused = await refusedAnswer(services, event, gate);
    if (refused) return refused;
    const answers = defaultAnswers(gate, event.comment.author.login, at(event), "human").map((a) => ({
      ...a,
      note: "accepted the default with /defaults",
      commentId: event.comment.id,
      url: event.comment.url,
    }));
    if (answers.length === 0) {
      await reply(services, event, `@${event.comment.author.login} the open question has no defaults left to accept; please answer it.`);
      return { kind: "noDefaults" };
    }
    return applyAnswers(services, targetOf(event), gate, answers, {
      by: event.comment.author.login,
      commentId: event.comment.id,
      at: at(event),
      receivedAt: event.receivedAt,
      url: event.comment.url,
    });
  },

  note: async (services, event, args) => {
    if (!args.trim()) {
      await reply(services, event, "`/note` needs the guidance after it, e.g. `/note keep the public API unchanged`.");
      return { kind: "noteEmpty" };
    }
    const ref = { repo: event.repo, issue: event.issue.number };
    await services.notes.addNote(ref, {
      by: event.comment.author.login,
      at: at(event),
      url: event.comment.url,
      text: args.trim(),
      round: await services.rounds.currentRound(ref),
      deliveryId: event.deliveryId,
    });
    // Deleted before this event was processed (GitHub does not promise order): withdrawn at once.
    if (await services.commentMarks.commentWasDeleted(event.repo, event.comment.id)) {
      await services.notes.reviseNote(ref, event.comment.url, "");
      return { kind: "noteWithdrawn", early: true };
    }
    await sendFeedback(
      services,
      targetOf(event),
      [{ type: "react", commentId: event.comment.id, content: "+1" }],
      `note from @${event.comment.author.login} recorded; it is folded into the next round`,
      `note-${event.comment.id}`,
    );
    return { kind: "noteRecorded" };
  },

  stop: async (services, event) => {
    await services.agents.requestStop(event.repo, event.issue.number, event.comment.author.login, "command");
    await sendFeedback(
      services,
      targetOf(event),
      [{ type: "react", commentId: event.comment.id, content: "+1" }],
      `@${event.comment.author.login} asked to stop the running agent`,
      `stop-${event.comment.id}`,
    );
    return { kind: "stopRequested" };
  },

  cancel: async (services, event, _args, settings) => {
    const gate = await openGateOf(services, event);
    if (!gate) {
      await reply(services, event, "There is no open question to cancel.");
      return { kind: "nothingToCancel", why: "nothing open" };
    }
    if (!(await services.gates.cancelGate(gate, `cancelled by @${event.comment.author.login}`))) return { kind: "nothingToCancel", why: "already settled" };
    services.events.notify("gate.closed", { gate, state: "cancelled", reason: `cancelled by @${event.comment.author.login}` });
    await sendFeedback(
      services,
      targetOf(event),
      [
        { type: "removeLabel", label: settings.labels.awaiting },
        { type: "react", commentId: event.comment.id, content: "+1" },
      ],
      `gate ${gate.id} cancelled by @${event.comment.author.login}; the agent is not resumed`,
      `cancel-${event.comment.id}`,
    );
    return { kind: "gateCancelled", why: "command" };
  },

  retry: async (services, event, _args, settings) => {
    if (await openGateOf(services, event)) {
      await reply(services, event, "A question is open: answer it (or `/cancel` it) before `/retry`.");
      return { kind: "refusedWhileOpen", command: "retry" };
    }
    await services.queues.addSpawn(
      {
        installationId: event.installationId,
        repo: event.repo,
        issue: event.issue.number,
        trigger: { type: "dispatch", by: event.comment.author.login, commentId: event.comment.id, retry: true },
        receivedAt: event.receivedAt,
      },
      jobIds.retry(event.repo, event.issue.number, event.comment.id),
      settings.maxAttempts,
    );
    return { kind: "retryQueued" };
  },

  reopen: async (services, event, args) => reopen(services, event, args),

  status: async (services, event, _args, settings) => {
    await reply(services, event, await describeStatus(services, event, settings));
    return { kind: "replied", with: "status" };
  },

  // People talking among themselves: nothing is recorded and nothing is said back.
  discuss: () => Promise.resolve({ kind: "discussion", why: "not an answer" }),

  help: async (services, event) => {
    await reply(services, event, HELP_TEXT);
    return { kind: "replied", with: "help" };
  },
};

/** Runs a slash command from a permitted human. An unknown one gets the help text, once per person and issue. */
export async function runCommand(services: CommandPorts, event: CommentEvent, command: Command, settings: RepoSettings): Promise<Outcome> {
  if (command.name === "unknown") {
    const first = await services.commentMarks.firstTime(`help:${event.repo.toLowerCase()}#${event.issue.number}:${event.comment.author.login.toLowerCase()}`);
    if (first) await reply(services, event, `Unknown command \`/${command.raw}\`.\n\n${HELP_TEXT}`);
    return { kind: "unknownCommand", raw: command.raw };
  }
  return HANDLERS[command.name](services, event, command.args, settings);
}

/**
 * `/reopen TEXT` corrects the last answer (a default taken at timeout, or a misread reply): a
 * correction gate with the same questions is recorded as answered and resumes like any other, so
 * the one-spawn-per-answer rule holds and the history shows both.
 */
async function reopen(services: CommandPorts, event: CommentEvent, args: string): Promise<Outcome> {
  const last = await services.gates.lastGate({ repo: event.repo, issue: event.issue.number });
  if (!last || last.state === "open" || last.state === "cancelled" || last.state === "superseded") {
    await reply(services, event, last?.state === "open" ? "The question is still open: just answer it." : "There is no answered question to reopen.");
    return { kind: "reopenDeclined", why: "nothing to correct" };
  }
  const refused = await refusedAnswer(services, event, last);
  if (refused) return refused;
  if (isApprovalGate(last)) {
    // One person's /reopen must not overturn what the approval policy decided.
    await reply(
      services,
      event,
      "An approval is not corrected with `/reopen`: each vote counts once. `/retry` runs the agent again, and it asks for approval anew.",
    );
    return { kind: "reopenDeclined", why: "refused on an approval" };
  }
  const parsed = parseReply(args, last.ask.questions);
  if (parsed.answers.length === 0) {
    await reply(services, event, "`/reopen` needs the corrected answer after it, e.g. `/reopen 2` or `/reopen 1. Postgres`.");
    return { kind: "reopenDeclined", why: "no answer" };
  }
  const by = event.comment.author.login;
  const when = at(event);
  const id = `r${event.comment.id}`;
  const ask = { ...last.ask, kind: CORRECTION_KIND, id: newAskId(), context: `Correction by @${by} of the earlier answer to gate ${last.id}.` };
  const ref = { repo: event.repo, issue: event.issue.number };
  await services.gates.openGate({
    id,
    repo: event.repo,
    issue: event.issue.number,
    installationId: event.installationId,
    round: await services.rounds.currentRound(ref),
    ask,
    askedAt: when,
    askedBy: by,
    askUrl: event.comment.url,
    answerers: last.answerers,
  });
  const gate = await services.gates.getGate(id);
  if (!gate) return { kind: "reopenDeclined", why: "gate vanished" };
  const corrected = parsed.answers.map((a) => ({
    ...a,
    by,
    at: when,
    source: "human" as const,
    commentId: event.comment.id,
    url: event.comment.url,
    deliveryId: event.deliveryId,
  }));
  const kept = last.answers.filter((a) => !corrected.some((c) => c.question === a.question));
  await sendFeedback(
    services,
    targetOf(event),
    [],
    `@${by} reopened gate ${last.id} with a correction, read as ${readingSummary(parsed.answers, last.ask.questions)}; the agent is re-spawned with it`,
  );
  return applyAnswers(services, targetOf(event), gate, [...corrected, ...kept], {
    by,
    commentId: event.comment.id,
    at: when,
    receivedAt: event.receivedAt,
    url: event.comment.url,
  });
}

async function describeStatus(services: Pick<CommandPorts, "gates" | "notes" | "rounds">, event: CommentEvent, settings: RepoSettings): Promise<string> {
  const ref = { repo: event.repo, issue: event.issue.number };
  const [gate, round, notes] = await Promise.all([services.gates.lastGate(ref), services.rounds.currentRound(ref), services.notes.notes(ref)]);
  const lines = [`**Escalation status** · round ${round} · ${notes.length} note(s) from humans`];
  if (!gate) {
    lines.push("No question has been asked on this issue.");
  } else if (gate.state === "open") {
    lines.push(`Open question (gate ${gate.id}, asked ${formatDuration((Date.now() - gate.askedAt) / 1000)} ago by @${gate.askedBy}):`);
    if (isApprovalGate(gate)) {
      const rule = approvalRule(gate.ask, settings);
      lines.push(`- ${gate.ask.questions[0]!.text} — ${tallyLine(tally(await services.gates.votes(gate.id), rule), rule)} (policy ${rule.policy})`);
      return lines.join("\n");
    }
    gate.ask.questions.forEach((q, i) => {
      const answer = gate.answers.find((a) => a.question === i);
      lines.push(
        `- ${i + 1}. ${q.text}${q.options.length ? ` (options: ${q.options.join(" / ")})` : ""}${q.default ? ` · default: ${q.default}` : ""} — ${answer ? `answered by @${answer.by}` : "waiting"}`,
      );
    });
    lines.push(whoCanAnswer(gate.answerers));
  } else {
    lines.push(
      `Last question (gate ${gate.id}) is **${gate.state}**${gate.answeredBy ? `, answered by @${gate.answeredBy}` : ""}${gate.closedReason ? ` (${gate.closedReason})` : ""}.`,
    );
  }
  return lines.join("\n");
}
