import type { AgentProcess } from "./agents.js";

/** A gate as the app keeps it at the end of the run (Redis, rebuilt from GitHub after any wipe). */
export interface GateRecord {
  id: string;
  state: string;
  answerCommentId?: number;
  /** Answers recorded, one per question. */
  answers: number;
  questions: number;
}

/** What a run left behind: the issue on GitHub (the simulator) and the agents' log. */
export interface Observation {
  /** The newest question's resume completed (and the run settled) before the deadline. */
  done: boolean;
  /** When not done: the last step reached, for the report. */
  stuckAt: string;
  deadlineSeconds: number;
  /** The agent's ask comments (the questions), oldest first. */
  asks: string[];
  /** The human's replies: ask comment id -> reply comment id. */
  answers: Map<string, number>;
  /** The app's gates of the issue at the end (undefined when Redis could not be read). */
  gates: GateRecord[] | undefined;
  agents: AgentProcess[];
  /** Whether an agent's app was stopped (SIGKILL or SIGTERM) while the agent ran. */
  diedWithApp: (agent: AgentProcess) => boolean;
  /** Whether a round completed only after its app died (so the app could not record it). */
  orphaned: (agent: AgentProcess) => boolean;
  /** Found while the run went on (lingering agents). */
  trackerViolations: string[];
}

/** Two agents of one issue overlapping by less than this are a polling artefact, not a duplicate. */
const OVERLAP_TOLERANCE_MS = 150;

/**
 * The rules, from the issue's point of view:
 * - no gate lost: the run completes (the newest question is resumed and that round finishes) within
 *   the deadline after its last fault (each fault may cost a stalled job's lock expiry);
 *   every question is either resumed or superseded by a newer one, and the app's record says so.
 * - answered once: each reply answers at most one gate, each gate is answered by one reply.
 * - resumed once: each answered gate has exactly one COMPLETED resume round. A round whose app was
 *   killed under it does not count, whether it died too (it logged no end) or finished in the moment
 *   before the watchdog's SIGTERM reached it (the app could not record that); its re-run does. A
 *   round that vanished while its app lived (no SIGTERM from the app) is a violation, and so are two
 *   agents of the issue alive at once (a duplicate spawn even if one was later stopped) and an agent
 *   outliving its killed app (lingering).
 * - dispatched once: round 0 completes exactly once per `/agent`.
 */
export function checkInvariants(o: Observation): string[] {
  const violations = [...o.trackerViolations];
  if (!o.done) violations.push(`lost: the run did not complete within ${o.deadlineSeconds} s of its last fault (${o.stuckAt})`);

  const completed = o.agents.filter((a) => a.completedAt !== undefined && !o.orphaned(a));
  const round0 = completed.filter((a) => a.round === 0);
  if (round0.length > 1) violations.push(`duplicate dispatch: round 0 completed ${round0.length} times (pids ${round0.map((a) => a.pid).join(", ")})`);
  const resumes = completed.filter((a) => a.round > 0);
  for (const agent of resumes.filter((a) => !a.resumes))
    violations.push(`resume without an answer: pid ${agent.pid} ran round ${agent.round} with no answered gate in its task`);
  for (const agent of completed.filter((a) => !a.titled))
    violations.push(`task without the issue: pid ${agent.pid} ran round ${agent.round} without the issue's title and text`);

  const byGate = new Map<string, AgentProcess[]>();
  for (const agent of resumes) if (agent.resumes) byGate.set(agent.resumes, [...(byGate.get(agent.resumes) ?? []), agent]);
  for (const [gate, runs] of byGate) {
    if (runs.length > 1)
      violations.push(
        `duplicate spawn: gate ${gate} was resumed by ${runs.length} completed rounds (${runs.map((a) => `round ${a.round} pid ${a.pid}`).join(", ")})`,
      );
  }

  o.asks.forEach((ask, index) => {
    const newer = index < o.asks.length - 1;
    const record = o.gates?.find((g) => g.id === ask);
    const runs = byGate.get(ask)?.length ?? 0;
    if (record?.state === "superseded" && newer) {
      if (runs > 0) violations.push(`superseded gate ${ask} was resumed anyway`);
      return;
    }
    if (o.done && runs === 0) violations.push(`lost gate: question ${ask} was never resumed${record ? ` (the app says ${record.state})` : ""}`);
    if (!o.done || !o.gates) return;
    if (!record) violations.push(`the app lost gate ${ask}: no record of it after the run`);
    else if (record.state !== "resumed") violations.push(`the app's record of gate ${ask} is "${record.state}" after its round finished`);
  });

  const replies = new Set(o.answers.values());
  const answeredBy = new Map<number, string[]>();
  for (const gate of o.gates ?? []) {
    if (gate.answerCommentId === undefined) continue;
    if (!replies.has(gate.answerCommentId))
      violations.push(`answered by a stranger: gate ${gate.id} records answer comment ${gate.answerCommentId}, which no human posted`);
    answeredBy.set(gate.answerCommentId, [...(answeredBy.get(gate.answerCommentId) ?? []), gate.id]);
    if (gate.answers !== gate.questions)
      violations.push(`answered ${gate.answers} times: gate ${gate.id} records ${gate.answers} answers to its ${gate.questions} question(s)`);
  }
  for (const [reply, gates] of answeredBy)
    if (gates.length > 1) violations.push(`one reply answered ${gates.length} gates: comment ${reply} -> ${gates.join(", ")}`);

  const byIssue = new Map<number, AgentProcess[]>();
  for (const agent of o.agents) byIssue.set(agent.issue, [...(byIssue.get(agent.issue) ?? []), agent]);
  // An agent that asked has done its work: the next round may start (the human answered) before it exits.
  const workEnd = (a: AgentProcess) =>
    Math.min(a.askPostedAt ?? Infinity, a.askedAt ?? Infinity, a.completedAt ?? Infinity, a.failedAt ?? Infinity, a.diedAt ?? Infinity);
  for (const agents of byIssue.values()) {
    const sorted = [...agents].sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < sorted.length; i++) {
      const earlier = sorted.slice(0, i).find((a) => workEnd(a) > sorted[i]!.startedAt + OVERLAP_TOLERANCE_MS);
      if (earlier)
        violations.push(
          `two agents at once: pid ${sorted[i]!.pid} (round ${sorted[i]!.round}) started while pid ${earlier.pid} (round ${earlier.round}) was still running`,
        );
    }
  }
  // The app may stop a round (its lock was lost, a timeout, /stop): SIGTERM, which the agent logs;
  // what that costs, the rules above judge. An agent that failed by itself (GitHub refused its ask)
  // is retried by the app. A round that just vanished under a live app is a fault.
  for (const agent of o.agents) {
    if (
      agent.completedAt === undefined &&
      agent.signalledAt === undefined &&
      agent.failedAt === undefined &&
      agent.diedAt !== undefined &&
      !o.diedWithApp(agent)
    ) {
      violations.push(`round died under a live app: pid ${agent.pid} (round ${agent.round}) ended without finishing and without a SIGTERM`);
    }
  }
  return violations;
}
