import { describe, expect, it } from "vitest";
import type { AgentProcess } from "../../../tools/chaos/agents.js";
import { checkInvariants, type Observation } from "../../../tools/chaos/invariants.js";

const agent = (pid: number, round: number, startedAt: number, rest: Partial<AgentProcess>): AgentProcess => ({
  pid,
  appPid: 1,
  issue: 1,
  round,
  startedAt,
  titled: true,
  ...rest,
});

/** A run that settled: round 0 asked question 10 (answered by reply 11) and round 1 resumed it. */
function observation(first: AgentProcess): Observation {
  return {
    done: true,
    stuckAt: "",
    deadlineSeconds: 60,
    asks: ["10"],
    answers: new Map([["10", 11]]),
    gates: [{ id: "10", state: "resumed", answerCommentId: 11, answers: 1, questions: 1 }],
    agents: [
      first,
      agent(3, 0, 2000, { asked: "10", askedAt: 2500, completedAt: 2600, diedAt: 2600 }),
      agent(4, 1, 3000, { resumes: "10", token: "10", completedAt: 4000, diedAt: 4000 }),
    ],
    diedWithApp: () => false,
    orphaned: () => false,
    trackerViolations: [],
  };
}

describe("the chaos run's rules", () => {
  it("an agent that gave up by itself (GitHub refused its ask) is a failure the app retries, not a vanished round", () => {
    expect(checkInvariants(observation(agent(2, 0, 1000, { failedAt: 1500, diedAt: 1500 })))).toEqual([]);
  });

  it("an agent that vanished under a live app, without finishing, failing or a SIGTERM, is a violation", () => {
    expect(checkInvariants(observation(agent(2, 0, 1000, { diedAt: 1500 })))).toEqual([
      "round died under a live app: pid 2 (round 0) ended without finishing and without a SIGTERM",
    ]);
  });
});
