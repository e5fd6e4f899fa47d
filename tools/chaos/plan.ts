import { Rng, runSeed } from "./rng.js";

/**
 * What a chaos run does: one issue through the whole loop (dispatch, the agent asks, a human
 * answers, the agent is re-spawned and finishes), with faults injected when the run reaches a step.
 */

/** The points of a run at which a fault can strike, in the order a run reaches them. */
export const STEPS = [
  /** The round-0 agent (dispatched by /agent) is running. */
  "round0-running",
  /** The agent's ask comment is on the issue and its gate is in Redis. */
  "gate-recorded",
  /** The human's answer comment was just posted. */
  "answered",
  /** The resume job for the answered gate is in the spawn queue. */
  "enqueued",
  /** The re-spawned agent (round 1 or later) is running. */
  "agent-running",
] as const;
export type Step = (typeof STEPS)[number];

export const FAULT_KINDS = [
  "kill-app",
  "restart-redis",
  "wipe-redis",
  "duplicate-deliveries",
  "pause-deliveries",
  "github-5xx",
  "secondary-limit",
  "lose-deliveries",
  "kill-runner",
  "term-runner",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  kind: FaultKind;
  step: Step;
  /** kill-app, restart-redis: how long the process stays down; pause-deliveries: how long webhooks are held. */
  downMs: number;
  /** wipe-redis: restart the app with SIGTERM (graceful) instead of SIGKILL. */
  graceful: boolean;
  /**
   * duplicate-deliveries, pause-deliveries: how many past deliveries are sent again; github-5xx: how
   * many API requests fail; lose-deliveries: how many new deliveries are lost; secondary-limit: its
   * Retry-After in seconds.
   */
  count: number;
  /** kill-app with two replicas: which one (0 or 1); both when 2. kill-runner, term-runner: which runner; every one when it is the number of runners. */
  replica: number;
}

export interface RunPlan {
  index: number;
  seed: number;
  replicas: 1 | 2;
  /** Runners (ROLE=runner) beside the app replicas (then ROLE=app): 0, the app runs the agents itself (ROLE=all). */
  runners: 0 | 1 | 2;
  faults: Fault[];
  /** How long the round-0 agent works before asking, and the re-spawned agent before finishing. */
  round0Ms: number;
  resumeMs: number;
}

/**
 * A wipe before the agent asked loses the dispatch itself (its job lived only in Redis, and `/agent`
 * is not replayed by reconciliation): out of scope here, so wipes strike from the gate on.
 */
const STEPS_BY_KIND: Record<FaultKind, readonly Step[]> = {
  "kill-app": STEPS,
  "restart-redis": STEPS,
  "wipe-redis": STEPS.filter((s) => s !== "round0-running"),
  "duplicate-deliveries": STEPS,
  "pause-deliveries": STEPS,
  "github-5xx": STEPS,
  "secondary-limit": STEPS,
  "lose-deliveries": STEPS,
  "kill-runner": STEPS,
  "term-runner": STEPS,
};

/** Faults that only strike where runners run the agents. */
const RUNNER_KINDS: readonly FaultKind[] = ["kill-runner", "term-runner"];

const KIND_WEIGHTS: Array<[FaultKind, number]> = [
  ["kill-app", 30],
  ["restart-redis", 15],
  ["wipe-redis", 20],
  ["duplicate-deliveries", 20],
  ["pause-deliveries", 15],
  ["github-5xx", 15],
  ["secondary-limit", 10],
  ["lose-deliveries", 15],
  ["kill-runner", 30],
  ["term-runner", 20],
];

function weightedKind(rng: Rng, runners: number): FaultKind {
  const weights = KIND_WEIGHTS.filter(([kind]) => runners > 0 || !RUNNER_KINDS.includes(kind));
  const total = weights.reduce((sum, [, w]) => sum + w, 0);
  let roll = rng.next() * total;
  for (const [kind, weight] of weights) {
    roll -= weight;
    if (roll < 0) return kind;
  }
  return weights[0]![0];
}

export function fault(kind: FaultKind, step: Step, over: Partial<Fault> = {}): Fault {
  return { kind, step, downMs: 500, graceful: false, count: 3, replica: 0, ...over };
}

function randomFault(rng: Rng, replicas: number, runners: number): Fault {
  const kind = weightedKind(rng, runners);
  return {
    kind,
    step: rng.pick(STEPS_BY_KIND[kind]),
    downMs: kind === "pause-deliveries" ? rng.int(500, 3000) : rng.int(0, 1500),
    graceful: rng.chance(0.4),
    count: kind === "github-5xx" ? rng.int(2, 12) : rng.int(1, 5),
    replica: RUNNER_KINDS.includes(kind) ? rng.int(0, runners) : replicas === 2 ? rng.int(0, 2) : 0,
  };
}

/** Run `index` of a suite seeded with `seed`: one to three faults at random steps, sometimes two replicas. */
export function randomPlan(seed: number, index: number): RunPlan {
  const own = runSeed(seed, index);
  return planFromSeed(own, index);
}

export function planFromSeed(own: number, index: number): RunPlan {
  const rng = new Rng(own);
  const replicas = rng.chance(0.25) ? 2 : 1;
  const runners = rng.chance(0.3) ? (rng.chance(0.5) ? 1 : 2) : 0;
  const count = rng.chance(0.6) ? 1 : rng.chance(0.75) ? 2 : 3;
  const faults = Array.from({ length: count }, () => randomFault(rng, replicas, runners));
  return { index, seed: own, replicas, runners, faults: sortByStep(faults), round0Ms: rng.int(200, 800), resumeMs: rng.int(1000, 2500) };
}

export function sortByStep(faults: Fault[]): Fault[] {
  return [...faults].sort((a, b) => STEPS.indexOf(a.step) - STEPS.indexOf(b.step));
}

/**
 * The short suite (`npm test`, `npm run chaos -- --short`): every fault kind at least once, at the
 * steps most likely to break something, plus two replicas; fixed so the test is repeatable.
 */
export function shortPlans(): RunPlan[] {
  // Longest first: with runs in parallel, the slow ones (a killed worker's job waits out its lock) overlap.
  const plans: Array<Omit<RunPlan, "index" | "seed">> = [
    { replicas: 1, runners: 0, faults: [fault("kill-app", "agent-running", { downMs: 200 })], round0Ms: 300, resumeMs: 1500 },
    { replicas: 2, runners: 0, faults: [fault("kill-app", "enqueued", { replica: 0, downMs: 300 })], round0Ms: 300, resumeMs: 1200 },
    { replicas: 1, runners: 0, faults: [fault("kill-app", "gate-recorded", { downMs: 300 })], round0Ms: 300, resumeMs: 1200 },
    { replicas: 1, runners: 0, faults: [fault("wipe-redis", "agent-running", { graceful: false })], round0Ms: 300, resumeMs: 1500 },
    {
      replicas: 1,
      runners: 0,
      faults: [fault("restart-redis", "answered", { downMs: 700 }), fault("wipe-redis", "enqueued", { graceful: true })],
      round0Ms: 300,
      resumeMs: 1200,
    },
    {
      replicas: 1,
      runners: 0,
      faults: [fault("pause-deliveries", "gate-recorded", { downMs: 1500, count: 2 }), fault("duplicate-deliveries", "agent-running", { count: 5 })],
      round0Ms: 300,
      resumeMs: 1200,
    },
    {
      // GitHub's faults: the answer's delivery lost (reconciliation finds it), a burst of 5xx as its round is queued, a secondary limit while it runs.
      replicas: 1,
      runners: 0,
      faults: [
        fault("lose-deliveries", "gate-recorded", { count: 1 }),
        fault("github-5xx", "enqueued", { count: 8 }),
        fault("secondary-limit", "agent-running", { count: 2 }),
      ],
      round0Ms: 300,
      resumeMs: 1200,
    },
    {
      // Two runners: both SIGTERMed while round 0 runs (it goes back, taken up after they restart), both SIGKILLed while the resumed round runs.
      replicas: 1,
      runners: 2,
      faults: [fault("term-runner", "round0-running", { replica: 2 }), fault("kill-runner", "agent-running", { replica: 2, downMs: 300 })],
      round0Ms: 1500,
      resumeMs: 1500,
    },
  ];
  return plans.map((plan, index) => ({ ...plan, index, seed: 0 }));
}

/** "kill-app@enqueued" and the like, for the table. */
export function describeFaults(plan: RunPlan): string {
  const parts = plan.faults.map((f) => `${f.kind}${f.kind === "wipe-redis" && f.graceful ? "(term)" : ""}@${f.step}`);
  if (plan.runners > 0) parts.unshift(`${plan.runners}-runner${plan.runners > 1 ? "s" : ""}`);
  if (plan.replicas === 2) parts.unshift("2-replicas");
  return parts.join(", ");
}
