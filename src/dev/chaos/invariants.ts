import type { StatusState } from "../../protocol/statusComment.js";
import type { AgentProcess } from "./agents.js";

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
  /** The hidden state of the app's status comment: GitHub's copy of the gates. */
  state: StatusState | undefined;
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
 * - no gate lost: the run completes (the newest question is resumed and that round finishes) in time;
 *   every question is either resumed or superseded by a newer one, and GitHub's record says so.
 * - answered once: each reply answers at most one gate, each gate is answered by one reply.
 * - resumed once: each answered gate has exactly one COMPLETED resume round. A round whose app was
 *   killed under it does not count, whether it died too (it logged no end) or finished in the moment
 *   before the watchdog's SIGTERM reached it (the app could not record that); its re-run does. A round that died while its
 *   app lived is a violation, and so are two agents of the issue alive at once (a duplicate spawn
 *   even if one was later killed) and an agent outliving its killed app (lingering).
 * - dispatched once: round 0 completes exactly once per `/agent`.
 */
export function checkInvariants(o: Observation): string[] {
  const violations = [...o.trackerViolations];
  if (!o.done) violations.push(`lost: the run did not complete within ${o.deadlineSeconds} s (${o.stuckAt})`);

  const completed = o.agents.filter((a) => a.completedAt !== undefined && !o.orphaned(a));
  const round0 = completed.filter((a) => a.round === 0);
  if (round0.length > 1) violations.push(`duplicate dispatch: round 0 completed ${round0.length} times (pids ${round0.map((a) => a.pid).join(", ")})`);
  const resumes = completed.filter((a) => a.round > 0);
  for (const agent of resumes.filter((a) => !a.resumes)) violations.push(`resume without an answer: pid ${agent.pid} ran round ${agent.round} with no answered gate in its task`);

  const byGate = new Map<string, AgentProcess[]>();
  for (const agent of resumes) if (agent.resumes) byGate.set(agent.resumes, [...(byGate.get(agent.resumes) ?? []), agent]);
  for (const [gate, runs] of byGate) {
    if (runs.length > 1) violations.push(`duplicate spawn: gate ${gate} was resumed by ${runs.length} completed rounds (${runs.map((a) => `round ${a.round} pid ${a.pid}`).join(", ")})`);
  }

  o.asks.forEach((ask, index) => {
    const newer = index < o.asks.length - 1;
    const record = o.state?.gates.find((g) => g.id === ask);
    const runs = byGate.get(ask)?.length ?? 0;
    if (record?.state === "superseded" && newer) {
      if (runs > 0) violations.push(`superseded gate ${ask} was resumed anyway`);
      return;
    }
    if (o.done && runs === 0) violations.push(`lost gate: question ${ask} was never resumed${record ? ` (GitHub says ${record.state})` : ""}`);
    if (!o.done) return;
    if (!record) violations.push(`GitHub record: gate ${ask} is missing from the status comment`);
    else if (record.state !== "resumed") violations.push(`GitHub record: gate ${ask} is left "${record.state}" on the status comment after its round finished`);
  });

  const replies = new Set(o.answers.values());
  const answeredBy = new Map<number, string[]>();
  for (const gate of o.state?.gates ?? []) {
    if (gate.answerCommentId === undefined) continue;
    if (!replies.has(gate.answerCommentId)) violations.push(`answered by a stranger: gate ${gate.id} records answer comment ${gate.answerCommentId}, which no human posted`);
    answeredBy.set(gate.answerCommentId, [...(answeredBy.get(gate.answerCommentId) ?? []), gate.id]);
    if (gate.answers.length !== 1) violations.push(`answered ${gate.answers.length} times: gate ${gate.id} records ${gate.answers.length} answers to its one question`);
  }
  for (const [reply, gates] of answeredBy) if (gates.length > 1) violations.push(`one reply answered ${gates.length} gates: comment ${reply} -> ${gates.join(", ")}`);

  const byIssue = new Map<number, AgentProcess[]>();
  for (const agent of o.agents) byIssue.set(agent.issue, [...(byIssue.get(agent.issue) ?? []), agent]);
  // An agent that asked has done its work: the next round may start (the human answered) before it exits.
  const workEnd = (a: AgentProcess) => Math.min(a.askPostedAt ?? Infinity, a.askedAt ?? Infinity, a.completedAt ?? Infinity, a.diedAt ?? Infinity);
  for (const agents of byIssue.values()) {
    const sorted = [...agents].sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < sorted.length; i++) {
      const earlier = sorted.slice(0, i).find((a) => workEnd(a) > sorted[i]!.startedAt + OVERLAP_TOLERANCE_MS);
      if (earlier) violations.push(`two agents at once: pid ${sorted[i]!.pid} (round ${sorted[i]!.round}) started while pid ${earlier.pid} (round ${earlier.round}) was still running`);
    }
  }
  for (const agent of o.agents) {
    if (agent.completedAt === undefined && agent.diedAt !== undefined && !o.diedWithApp(agent)) {
      violations.push(`round died under a live app: pid ${agent.pid} (round ${agent.round}) ended without finishing`);
    }
  }
  return violations;
}
