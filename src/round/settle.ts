import { StopRequest } from "../agent/runningAgents.js";
import { AgentError } from "../errors.js";
import { raiseRetryGate } from "../gates/retryGates.js";
import { sendFeedback } from "../status/feedback.js";
import type { RanRound } from "./context.js";
import { endLine, failureDetails, stoppedLine } from "./lines.js";
import { finishRound } from "./once.js";
import type { SpawnOutcome } from "./outcome.js";
import { roundTiming, runOutcome } from "./timing.js";

/**
 * The round's last step: what the agent's exit means. Stopped by a shutdown or a lost lock, the job
 * runs the round again (nothing is recorded); a failure with attempts left is retried (thrown);
 * anything else ends the round, recorded first, before the worker can die again. Then the issue
 * hears how it ended, the awaiting label comes off, and a last failure asks a human whether to retry.
 */
export async function settleRound(ran: RanRound): Promise<SpawnOutcome> {
  const { services, data, job, round, run, gate, attempt, log, target } = ran;
  const maxAttempts = job.attempts;
  const stop: unknown = ran.signal?.reason;
  const interrupted = run.cancelled && !(stop instanceof StopRequest);
  const retried = run.failed && !run.cancelled && attempt < maxAttempts;
  if (!interrupted && !retried) await finishRound(services, ran.ref, job.id, gate);
  const outcome = runOutcome(run);
  services.events.notify("agent.exited", { repo: data.repo, issue: data.issue, round, outcome, durationMs: run.durationMs });
  if (!interrupted)
    await services.rounds
      .recordRoundTiming(ran.ref, roundTiming(round, run, outcome, gate, Date.now()))
      .catch((error: unknown) => log.warn({ err: error }, "could not record the round's timing"));
  const said = `${ran.askLine}${ran.saved?.line ?? ""}`;
  if (run.cancelled && stop instanceof StopRequest) {
    await sendFeedback(services, target, { ops: ran.awaitingOff, line: stoppedLine(round, stop.message, run, said) });
    return { round, run };
  }
  if (run.cancelled) return { round, run }; // shutdown or a lost lock: the worker puts the round back, or leaves it to its new holder
  const { secrets } = ran.inputs;
  if (retried) {
    await sendFeedback(services, target, { line: endLine(round, run, secrets, ` · attempt ${attempt} of ${maxAttempts}; retrying with backoff${said}`) });
    throw new AgentError(`agent failed in round ${round} (attempt ${attempt} of ${maxAttempts})`);
  }
  // The round that took the answer is over: the label comes off, a moment later so that a question
  // the agent just asked (its webhook on the way) keeps it on; a failure asks a human next. On
  // success that is the round trip's second write; the line rides along with the next render.
  // Not when the agent asked again and that newer question was already answered: reconciliation
  // reads the label coming off after the newest question as that question's round having finished.
  const labelOff = gate && !run.failed && (await services.gates.lastGateId(ran.ref)) === gate.id;
  await sendFeedback(services, target, {
    ops: labelOff ? ran.awaitingOff : [],
    line: endLine(round, run, secrets, `${said}${ran.delivered}`),
    // A status comment the issue has already is kept current; work that went elsewhere is always told.
    quiet: run.failed || ran.saved?.notable || ran.askLine ? false : "unless-shown",
    ...(labelOff ? { delayMs: services.config.statusDebounceMs } : {}),
  });
  if (run.failed) {
    await raiseRetryGate(
      services,
      target,
      "attempts_exhausted",
      `The agent failed ${maxAttempts} time(s) in round ${round}. Retry?`,
      failureDetails(run, secrets),
      round,
    );
  }
  return { round, run };
}
