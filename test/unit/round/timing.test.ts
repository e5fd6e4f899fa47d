import { describe, expect, it } from "vitest";
import type { AgentRun } from "../../../src/agent/runAgent.js";
import { roundTiming, runOutcome } from "../../../src/round/timing.js";
import { gate } from "../../support/gateFakes.js";

function run(over: Partial<AgentRun> = {}): AgentRun {
  return { exitCode: 0, signal: undefined, timedOut: false, cancelled: false, durationMs: 30_000, tail: [], failed: false, ...over };
}

const NOW = Date.parse("2026-12-01T12:00:00Z");

describe("a round's timing record", () => {
  it("names how the run ended", () => {
    expect(runOutcome(run())).toBe("success");
    expect(runOutcome(run({ failed: true, timedOut: true, cancelled: true }))).toBe("timeout");
    expect(runOutcome(run({ failed: true, cancelled: true }))).toBe("stopped");
    expect(runOutcome(run({ failed: true, exitCode: 1 }))).toBe("failure");
  });

  it("a dispatched round keeps only the agent's clock, which ended now", () => {
    expect(roundTiming(0, run(), "success", undefined, NOW)).toEqual({ round: 0, startedAt: NOW - 30_000, runMs: 30_000, outcome: "success" });
  });

  it("a resumed round keeps the human wait of its gate and who answered", () => {
    const answered = gate({ answeredAt: gate().askedAt + 120_000, answeredBy: "bob" });
    expect(roundTiming(1, run(), "failure", answered, NOW)).toEqual({
      round: 1,
      startedAt: NOW - 30_000,
      runMs: 30_000,
      outcome: "failure",
      gate: "1001",
      waitMs: 120_000,
      answeredBy: "bob",
    });
  });

  it("a wait is never negative (clocks apart), and a gate without an answer time has none", () => {
    expect(roundTiming(1, run(), "success", gate({ answeredAt: gate().askedAt - 5 }), NOW).waitMs).toBe(0);
    expect(roundTiming(1, run(), "success", gate(), NOW)).toEqual({ round: 1, startedAt: NOW - 30_000, runMs: 30_000, outcome: "success", gate: "1001" });
  });
});
