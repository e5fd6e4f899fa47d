import type { CommandChoice } from "../agent/agentCommand.js";
import type { AgentRun } from "../agent/runAgent.js";

/**
 * What a spawn job ends with: the round it ran and how the agent exited, or why it started none; the
 * spawn queue keeps it a day as a line (describeSpawn), beside the job id it refuses again. The reasons are a closed
 * set, so a new way of not running a round is a deliberate change here, not a stray string.
 */
export interface SpawnOutcome {
  skipped?: SkipReason;
  round?: number;
  run?: AgentRun;
}

/** A round a step ended before (or instead of) running the agent, and why. */
export interface Skipped {
  skipped: SkipReason;
  round?: number;
}

export type SkipReason =
  // Before a round: the job's round ran already (BEGIN_ROUND), or its comment's did (once.ts, alreadyRan).
  | "round already ran"
  | "that comment's round already started"
  // The gate the job resumes: missing, or not claimable ("gate done", "gate open", "gate resumed", ...).
  | `gate ${string}`
  | "human gave up"
  | "issue closed"
  // No command for the repository (src/agent/agentCommand.ts).
  | Extract<CommandChoice, { problem: string }>["skipped"]
  | "round limit reached"
  | "stopped while Redis settled"
  // A re-run the issue has moved past (once.ts, overtaken).
  | `round ${number} was superseded by a later round`
  | `round ${number} had already asked its question`
  | "workspace refused"
  | "sandbox did not start";

/** The outcome in a line: `skipped: <reason>` (in round N), or `round N: <exit code or signal>`, with a timeout or stop said. */
export function describeSpawn({ skipped, round, run }: SpawnOutcome): string {
  const inRound = round === undefined ? "" : ` (round ${round})`;
  if (skipped) return `skipped: ${skipped}${inRound}`;
  if (!run) return `ended${inRound}`;
  const how = run.timedOut ? "timed out" : run.cancelled ? "stopped" : run.signal ? `killed by ${run.signal}` : `exit ${run.exitCode}`;
  return `round ${round}: ${how} after ${run.durationMs} ms`;
}
