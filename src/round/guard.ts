import { chooseAgentCommand } from "../agent/agentCommand.js";
import { cachedTemplate } from "../agent/renderTask.js";
import type { FeedbackOp } from "../payloads.js";
import { choseRetry, isRetryGate, raiseRetryGate } from "../gates/retryGates.js";
import { sendFeedback } from "../status/feedback.js";
import type { ClaimedRound, RoundContext } from "./context.js";
import { alreadyRan, overtaken, redisSettled } from "./once.js";
import type { Skipped } from "./outcome.js";

/**
 * The round's first step: whether this job may run a round at all, and which. It claims the answered
 * gate (once), allocates the round's number within MAX_ROUNDS, and stops at anything that says no:
 * the round already ran, the human chose not to retry, the issue is closed, there is no command, the
 * round limit is reached (a human is asked), Redis was wiped moments ago, or the issue moved past it.
 * Each stop is told on the issue where a person needs to know.
 */
export async function guardRound(context: RoundContext): Promise<ClaimedRound | Skipped> {
  const { services, job, data, ref, target } = context;
  // Everything before the fork is a handful of round trips: each await here delays the agent.
  const [ran, { settings }, gate] = await Promise.all([
    alreadyRan(services, job, data),
    services.settings(data.installationId, data.repo),
    data.trigger.type === "resume" ? services.gates.getGate(data.trigger.gateId) : undefined,
  ]);
  if (ran) return { skipped: ran };
  if (data.trigger.type === "resume" && !gate) return { skipped: "gate missing" };
  const awaitingOff: FeedbackOp[] = gate ? [{ type: "removeLabel", label: settings.labels.awaiting }] : [];
  // The server's command, or the server's profile the repository names; never the repository's own.
  const choice = chooseAgentCommand(services.config.agent, settings.agentProfile);
  const retryGate = gate && isRetryGate(gate) ? { retry: choseRetry(gate), kind: gate.ask.kind } : undefined;
  const start = await services.rounds.beginRound(ref, job.id, {
    claimGate: gate?.id,
    // A resume runs a round after the one that asked, even if Redis lost the issue's round counter.
    allocate: retryGate?.retry === false || "problem" in choice ? undefined : { maxRounds: settings.maxRounds, lowest: gate ? gate.round + 1 : 0 },
    raiseLimitBy: retryGate?.retry && retryGate.kind === "rounds_exhausted" ? settings.maxRounds : 0,
  });
  if (start.claim === "done") return { skipped: "round already ran" };
  if (start.claim !== "claimed") return { skipped: `gate ${start.claim}` };
  if (gate && retryGate?.retry === false) {
    await services.gates.finishResume(gate, Date.now());
    await sendFeedback(services, target, { ops: awaitingOff, line: `@${gate.answeredBy ?? "someone"} chose not to retry; the agent is not re-run` });
    return { skipped: "human gave up" };
  }
  // An answer or dispatch still queued when the issue was closed must not start an agent on it.
  if (start.closed) {
    await sendFeedback(services, target, { ops: awaitingOff, line: "the issue is closed: the queued round was not started" });
    return { skipped: "issue closed" };
  }
  if ("problem" in choice) {
    await sendFeedback(services, target, {
      ops: choice.comment ? [{ type: "comment", body: choice.comment }] : [],
      line: `could not start the agent: ${choice.problem}`,
      key: `no-command-${job.id}`,
    });
    return { skipped: choice.skipped };
  }
  const { round, currentRound: current } = start;
  if (round === undefined) {
    await raiseRetryGate(
      services,
      target,
      "rounds_exhausted",
      `The agent has used ${current + 1} rounds on this issue, the limit. Run more rounds?`,
      `A human must allow more rounds so a confused agent cannot loop forever. "retry" grants ${settings.maxRounds} more.`,
      current,
    );
    return { skipped: "round limit reached" };
  }
  if (!(await redisSettled(services, context.startupEpoch, start.epoch, context.signal))) return { skipped: "stopped while Redis settled", round };
  const [{ issue: recorded, gates, notes, currentRound }, template] = await Promise.all([
    services.rounds.roundRecords(ref),
    cachedTemplate(services.config.taskTemplatePath),
  ]);
  const stale = await overtaken(services, job, ref, round, currentRound, gates, gate);
  if (stale) return { skipped: stale, round };
  const log = services.log.child({ repo: data.repo, issue: data.issue, round, job: job.id });
  return { ...context, round, settings, command: choice, gate, awaitingOff, recorded, gates, notes, template, log };
}
