import { jobIds } from "../../src/queueNames.js";
import { spawnState } from "../../src/queue/spawnQueue.js";
import { parseAskComment } from "../../src/protocol/ask.js";
import type { SimComment } from "../simulator/index.js";
import type { AgentTracker } from "./agents.js";
import { inject, type FaultTarget } from "./faults.js";
import { STEPS, type Fault, type RunPlan, type Step } from "./plan.js";
import { busyJobs, HUMAN, reconcilePasses, REPO, type Rig } from "./rig.js";

const POLL_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface DriveOptions {
  /** The newest question must be resumed, its round finished, this long after the last fault (or the dispatch). */
  deadlineMs: number;
  drainMs: number;
  settleMs: number;
  /** The run's directory (the apps' logs, read for their reconciliation passes). */
  dir: string;
}

export interface Drive {
  issue: number;
  /** The newest question was resumed, its round finished, and everything drained, in time. */
  done: boolean;
  /** The human's replies: ask comment id -> reply comment id. */
  answers: Map<string, number>;
  /** When each ask comment was first seen: with its whole-second timestamp, the latest it can have been posted. */
  askSeen: Map<string, number>;
  lastStep: string;
  /** Faults never injected (their step was not reached). */
  pending: Fault[];
  /** Found while draining: work that never finished. */
  problems: string[];
}

/**
 * The scenario: a maintainer files an issue and dispatches the agent; whenever a question appears
 * the maintainer answers it; each fault strikes when the run reaches its step. Done when the newest
 * question's resume round has finished and nothing is left to run: no queued or active job (a dead
 * worker's job re-runs only after its lock expires, and a duplicate would show then), no agent
 * alive, and two reconciliation passes since the last fault (a rebuild that would re-run a round
 * has happened).
 */
export async function drive(rig: Rig, plan: RunPlan, target: FaultTarget, tracker: AgentTracker, options: DriveOptions): Promise<Drive> {
  const { sim, client, keys } = rig;
  const { mark, rng } = target;
  const issue = sim.createIssue(REPO, { title: `Chaos run ${plan.index}`, body: "Add a cache in front of the lookups.", author: HUMAN }).number;
  sim.comment(REPO, issue, HUMAN, "/agent");
  mark(`issue #${issue} filed, /agent posted`);
  const run: Drive = { issue, done: false, answers: new Map(), askSeen: new Map(), lastStep: "dispatched", pending: [...plan.faults], problems: [] };
  const reached = new Set<Step>();
  let lastFaultAt = Date.now();

  const reach = async (step: Step) => {
    for (const s of STEPS.slice(0, STEPS.indexOf(step) + 1)) {
      if (reached.has(s)) continue;
      reached.add(s);
      run.lastStep = s;
      mark(`step: ${s}`);
      for (const fault of run.pending.filter((f) => f.step === s)) {
        run.pending.splice(run.pending.indexOf(fault), 1);
        mark(`fault: ${fault.kind}`);
        await inject(fault, target);
        lastFaultAt = Date.now();
      }
    }
  };
  const gateRecorded = async (askId: string) => (await client.hget(keys.gate(askId), "state").catch(() => null)) !== null;
  const resumeQueued = async (askId: string) => (await spawnState(rig.spawn, jobIds.resume(askId)).catch(() => ({ kind: "unknown" }))).kind !== "unknown";

  let resumedAt: number | undefined;
  for (;;) {
    tracker.poll();
    const asks = asksOn(sim.comments(REPO, issue), sim.botLogin, run.askSeen);
    const newest = asks.at(-1);
    if (tracker.processes.some((p) => p.round === 0)) await reach("round0-running");
    if (newest && (await gateRecorded(newest))) await reach("gate-recorded");
    const waitForGate = run.pending.some((f) => f.step === "gate-recorded");
    for (const ask of asks) {
      if (run.answers.has(ask) || (waitForGate && !reached.has("gate-recorded"))) continue;
      await target.pause(rng.int(0, 300)); // the human reads the question
      const reply = sim.comment(REPO, issue, HUMAN, `1. chaos-answer-${ask}`);
      run.answers.set(ask, reply.id);
      mark(`human answered question ${ask} (comment ${reply.id})`);
      await reach("answered");
    }
    if (newest && run.answers.has(newest) && (await resumeQueued(newest))) await reach("enqueued");
    if (tracker.processes.some((p) => p.round > 0)) await reach("agent-running");
    const resumed = newest !== undefined && run.answers.has(newest) && tracker.completed().some((p) => p.round > 0 && p.resumes === newest);
    if (resumed && resumedAt === undefined) mark(`the answer to ${newest} was resumed and the round finished; draining`);
    resumedAt = resumed ? (resumedAt ?? Date.now()) : undefined;
    if (resumedAt !== undefined) {
      const jobs = await busyJobs(rig);
      if (jobs === 0 && tracker.alive().length === 0 && reconcilePasses(options.dir, lastFaultAt) >= 2 && (await busyJobs(rig)) === 0) {
        run.done = true;
        break;
      }
      if (Date.now() > resumedAt + options.drainMs) {
        run.problems.push(
          `stuck: ${jobs} job(s) still queued or active and ${tracker.alive().length} agent(s) alive ${options.drainMs / 1000} s after the round finished`,
        );
        break;
      }
    } else if (Date.now() > lastFaultAt + options.deadlineMs) {
      break;
    }
    await sleep(POLL_MS);
  }
  await Promise.all(target.background);
  if (run.done) {
    mark("drained");
    await target.pause(options.settleMs);
  }
  tracker.poll();
  return run;
}

/** The app's ask comments on the issue (the questions), oldest first; notes when each was first seen. */
export function asksOn(comments: SimComment[], botLogin: string, seen: Map<string, number>): string[] {
  const asks = comments.filter((c) => c.user.login === botLogin && isAsk(c.body));
  for (const ask of asks) if (!seen.has(String(ask.id))) seen.set(String(ask.id), Math.min(Date.now(), Date.parse(ask.created_at) + 999));
  return asks.map((c) => String(c.id));
}

function isAsk(body: string): boolean {
  try {
    return parseAskComment(body) !== undefined;
  } catch {
    return false;
  }
}
