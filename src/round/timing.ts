import type { AgentRun } from "../agent/runAgent.js";
import type { Gate, RoundTiming } from "../domain.js";

/**
 * A round's timing record for the status comment, from how its agent ran and the gate it resumed.
 * Pure (the clock is passed in), so the two clocks it keeps are tested without a round.
 */

/** How the agent's run ended, in the record's (and the `agent.exited` event's) words. */
export function runOutcome(run: AgentRun): RoundTiming["outcome"] {
  return !run.failed ? "success" : run.timedOut ? "timeout" : run.cancelled ? "stopped" : "failure";
}

/** The round's two clocks: the human wait of the gate it resumed, and the agent's run, which ended at `now`. */
export function roundTiming(round: number, run: AgentRun, outcome: RoundTiming["outcome"], gate: Gate | undefined, now: number): RoundTiming {
  const answered = gate?.answeredAt;
  return {
    round,
    startedAt: now - run.durationMs,
    runMs: run.durationMs,
    outcome,
    ...(gate ? { gate: gate.id, ...(answered !== undefined ? { waitMs: Math.max(0, answered - gate.askedAt), answeredBy: gate.answeredBy } : {}) } : {}),
  };
}
