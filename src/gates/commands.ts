import type { RepoSettings } from "../config/repoConfig.js";
import type { Command } from "../protocol/commands.js";
import { HELP_TEXT } from "../protocol/help.js";
import { jobIds } from "../queueNames.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { answerFromReply, applyAnswers, defaultAnswers } from "./answerGate.js";
import { refusedAnswer } from "./answerers.js";
import { isApprovalGate, voteFromReply, type VotePorts } from "./approvalGate.js";
import { at, openGateOf, reply } from "./commandComment.js";
import { dispatch, type DispatchPorts } from "./dispatch.js";
import { reopen } from "./reopenCommand.js";
import { describeStatus } from "./statusCommand.js";
import { sendFeedback, targetOf } from "../status/feedback.js";
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
    await sendFeedback(services, targetOf(event), {
      ops: [{ type: "react", commentId: event.comment.id, content: "+1" }],
      line: `note from @${event.comment.author.login} recorded; it is folded into the next round`,
      key: `note-${event.comment.id}`,
    });
    return { kind: "noteRecorded" };
  },

  stop: async (services, event) => {
    await services.agents.requestStop(event.repo, event.issue.number, event.comment.author.login, "command");
    await sendFeedback(services, targetOf(event), {
      ops: [{ type: "react", commentId: event.comment.id, content: "+1" }],
      line: `@${event.comment.author.login} asked to stop the running agent`,
      key: `stop-${event.comment.id}`,
    });
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
    await sendFeedback(services, targetOf(event), {
      ops: [
        { type: "removeLabel", label: settings.labels.awaiting },
        { type: "react", commentId: event.comment.id, content: "+1" },
      ],
      line: `gate ${gate.id} cancelled by @${event.comment.author.login}; the agent is not resumed`,
      key: `cancel-${event.comment.id}`,
    });
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
