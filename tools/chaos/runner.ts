import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentTracker } from "./agents.js";
import type { FaultTarget } from "./faults.js";
import { checkInvariants } from "./invariants.js";
import { describeFaults, type RunPlan } from "./plan.js";
import { appGates, dumpState, REPO, startRig, TIMINGS, type Rig } from "./rig.js";
import { Rng } from "./rng.js";
import { asksOn, drive } from "./scenario.js";

export { CHAOS_AGENT } from "./rig.js";

export interface RunOptions {
  /** Where each run's logs go (run-N/app0.log, agents.jsonl, timeline.txt, issue.json, redis.json). */
  artifactsDir: string;
  /** A run must complete (newest question resumed, round finished) within this after its last fault. */
  deadlineMs: number;
  /** After completion: how long the queues may take to drain (a stalled job's re-run) before the check. */
  drainMs: number;
  /** Quiet time after the queues drained, in which a late duplicate would still show up. */
  settleMs: number;
  /** Extra environment for the app (e.g. LOG_LEVEL). */
  env?: Record<string, string>;
}

export interface RunResult {
  index: number;
  seed: number;
  faults: string;
  faultKinds: string[];
  outcome: "ok" | "violated" | "error";
  violations: string[];
  seconds: number;
  /** Agent processes seen, and the rounds that ran to their end while their app lived. */
  agentsStarted: number;
  agentsCompleted: number;
  timeline: string[];
  dir: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One run: its own Redis, simulator and app process(es); the loop with the plan's faults; the check. */
export async function runScenario(plan: RunPlan, options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const dir = join(options.artifactsDir, `run-${String(plan.index).padStart(3, "0")}`);
  mkdirSync(dir, { recursive: true });
  const timeline: string[] = [];
  const mark = (text: string) => timeline.push(`${((Date.now() - started) / 1000).toFixed(2).padStart(6)}s  ${text}`);
  const agentLog = join(dir, "agents.jsonl");
  writeFileSync(agentLog, "");
  const tracker = new AgentTracker(agentLog);
  const result = (outcome: RunResult["outcome"], violations: string[]): RunResult => ({
    index: plan.index,
    seed: plan.seed,
    faults: describeFaults(plan),
    faultKinds: [...(plan.replicas === 2 ? ["two-replicas"] : []), ...(plan.runners > 0 ? ["runners"] : []), ...plan.faults.map((f) => f.kind)],
    outcome,
    violations,
    seconds: (Date.now() - started) / 1000,
    agentsStarted: tracker.processes.length,
    agentsCompleted: tracker.completed().length,
    timeline,
    dir,
  });

  let rig: Rig | undefined;
  try {
    rig = await startRig(plan, dir, agentLog, tracker, options.env);
    const up = [...rig.apps, ...rig.runners].map((a) => `${a!.name} pid ${a!.pid}`).join(", ");
    mark(`${plan.replicas} app replica(s) and ${plan.runners} runner(s) up: ${up}; faults: ${describeFaults(plan) || "none"}`);
    const target = faultTarget(rig, plan, tracker, mark);
    const run = await drive(rig, plan, target, tracker, { ...options, dir });
    mark("checking");
    await dumpState(rig, run.issue, dir);
    const asks = asksOn(rig.sim.comments(REPO, run.issue), rig.sim.botLogin, run.askSeen);
    for (const ask of asks) tracker.askPosted(run.issue, run.askSeen.get(ask)!);
    const violations = checkInvariants({
      done: run.done || run.problems.length > 0,
      stuckAt: `last step reached: ${run.lastStep}; faults not yet injected: ${run.pending.map((f) => `${f.kind}@${f.step}`).join(", ") || "none"}`,
      deadlineSeconds: options.deadlineMs / 1000,
      asks,
      answers: run.answers,
      gates: await appGates(rig, run.issue),
      agents: tracker.processes,
      diedWithApp: (agent) => tracker.diedWithApp(agent),
      orphaned: (agent) => tracker.orphaned(agent),
      trackerViolations: [...tracker.violations, ...run.problems],
    });
    for (const agent of tracker.processes.filter((a) => tracker.orphaned(a)))
      mark(`note: pid ${agent.pid} (round ${agent.round}) finished after its app died; not counted`);
    for (const v of violations) mark(`VIOLATION ${v}`);
    return result(violations.length === 0 ? "ok" : "violated", violations);
  } catch (error) {
    mark(`ERROR ${(error as Error).stack ?? String(error)}`);
    return result("error", [`harness error: ${(error as Error).message}`]);
  } finally {
    await rig?.close();
    tracker.poll();
    tracker.killAll();
    writeFileSync(join(dir, "timeline.txt"), `${timeline.join("\n")}\n`);
  }
}

/** What the faults act on, with the run's seeded randomness and clock. */
function faultTarget(rig: Rig, plan: RunPlan, tracker: AgentTracker, mark: (text: string) => void): FaultTarget {
  return {
    rng: new Rng(plan.seed ^ 0x5eed),
    sim: rig.sim,
    redis: rig.redis,
    client: rig.client,
    tracker,
    apps: rig.apps,
    startApp: rig.startApp,
    runners: rig.runners,
    startRunner: rig.startRunner,
    mark,
    limits: { sigkillMs: (TIMINGS.killGraceS + 3) * 1000, sigtermMs: (TIMINGS.shutdownGraceS + TIMINGS.killGraceS + 4) * 1000 },
    background: [],
    async pause(ms) {
      const until = Date.now() + ms;
      do {
        tracker.poll();
        await sleep(Math.min(50, Math.max(0, until - Date.now())));
      } while (Date.now() < until);
    },
  };
}
