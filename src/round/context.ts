import type { AgentRun } from "../agent/runAgent.js";
import type { RepoSettings } from "../config/repoConfig.js";
import type { Gate, HumanNote, IssueRecord } from "../domain.js";
import type { FeedbackOp, SpawnJob } from "../payloads.js";
import type { SpawnTask } from "../queue/spawnQueue.js";
import type { Services } from "../services/services.js";
import type { IssueTarget } from "../status/feedback.js";
import type { RoundInputs, RoundPlan } from "./inputs.js";
import type { RoundWorkspace } from "./workspace.js";

/**
 * One round as it goes through its steps (src/round/runRound.ts): each step reads what the ones
 * before it settled and adds its own, so no step takes a list of positional parameters.
 */

/** What the job starts the round with. */
export interface RoundContext {
  services: Services;
  job: SpawnTask;
  /** The job's data, parsed. */
  data: SpawnJob;
  ref: { repo: string; issue: number };
  target: IssueTarget;
  /** Aborted by `/stop`, a lost lock or a shutdown. */
  signal?: AbortSignal;
  /** The namespace's epoch as this process found or created it at start-up (src/store/namespaceMarks.ts): a newer one means Redis was wiped since. */
  startupEpoch?: number;
}

/** After the guard: the round is this job's to run, with its number and what the issue holds. */
export interface ClaimedRound extends RoundContext {
  round: number;
  settings: RepoSettings;
  command: RoundPlan["command"];
  /** The answered gate the round resumes (claimed for it), for a resume. */
  gate?: Gate;
  /** Takes off the awaiting label of a round that resumed a gate: sent however the round ends early. */
  awaitingOff: FeedbackOp[];
  /** The issue as Redis has it (undefined when Redis lost it), its gates and the notes humans left. */
  recorded?: IssueRecord;
  gates: readonly Gate[];
  notes: readonly HumanNote[];
  /** The spawn-task template (templates/spawn-task.md, or TASK_TEMPLATE). */
  template: string;
  log: Services["log"];
}

/** After preparing: the agent's inputs are written and its checkout is open. */
export interface PreparedRound extends ClaimedRound {
  issue: RoundPlan["issue"];
  /** Every gate of the issue, the one this round resumes included. */
  history: readonly Gate[];
  workspace?: Extract<RoundWorkspace, { kind: "ready" }>;
  inputs: RoundInputs;
}

/** After the agent ran: how it exited and what became of its work. */
export interface RanRound extends PreparedRound {
  run: AgentRun;
  /** This attempt (1-based) and the most the job makes. */
  attempt: number;
  /** What became of the agent's ask file, for the end line ("" when it left none). */
  askLine: string;
  /** The checkout's save: its line, whether it is worth a status comment, whether the work is on the issue's branch. */
  saved?: { line: string; notable: boolean; onBranch: boolean };
  /** The pull request's line ("" when none was delivered). */
  delivered: string;
}
