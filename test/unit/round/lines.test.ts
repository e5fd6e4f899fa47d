import { describe, expect, it } from "vitest";
import type { AgentRun } from "../../../src/agent/runAgent.js";
import type { SpawnJob } from "../../../src/payloads.js";
import { endLine, failureDetails, startAcknowledgements, startLine, stoppedLine } from "../../../src/round/lines.js";
import { gate } from "../../support/gateFakes.js";

const dispatch = (over: Partial<Extract<SpawnJob["trigger"], { type: "dispatch" }>> = {}): SpawnJob => ({
  installationId: 1,
  repo: "acme/widgets",
  issue: 7,
  trigger: { type: "dispatch", by: "alice", commentId: 42, ...over },
  receivedAt: 0,
});
const resume: SpawnJob = { installationId: 1, repo: "acme/widgets", issue: 7, trigger: { type: "resume", gateId: "1001" }, receivedAt: 0 };

function run(over: Partial<AgentRun> = {}): AgentRun {
  return { exitCode: 0, signal: undefined, timedOut: false, cancelled: false, durationMs: 95_000, tail: [], failed: false, ...over };
}

const SECRET = "s3cr3t-token-value";

describe("what a round writes when its agent starts", () => {
  it("🚀 goes on the dispatching comment only", () => {
    expect(startAcknowledgements(dispatch(), undefined)).toEqual([{ type: "react", commentId: 42, content: "rocket" }]);
    expect(startAcknowledgements(dispatch({ commentId: undefined }), undefined)).toEqual([]);
    expect(startAcknowledgements(resume, gate())).toEqual([]);
  });

  it("the start line says who set the round off, and which attempt it is", () => {
    expect(startLine(2, dispatch(), undefined, 1)).toBe("round 2: agent started (dispatched by @alice)");
    expect(startLine(2, dispatch({ retry: true }), undefined, 3)).toBe("round 2: agent started (retry by @alice) (attempt 3)");
    expect(startLine(2, dispatch(), undefined, 2, "runner-b")).toBe("round 2: agent started (dispatched by @alice) on runner runner-b (attempt 2)");
    expect(startLine(1, resume, gate({ answeredBy: "bob" }), 1, "runner-b", true)).toBe(
      "round 1: agent started with the answer of @bob to gate 1001 on runner runner-b (started again: the earlier start did not finish)",
    );
    expect(startLine(2, dispatch(), undefined, 3, undefined, true)).toBe(
      "round 2: agent started (dispatched by @alice) (attempt 3; started again: the earlier start did not finish)",
    );
    expect(startLine(1, resume, gate({ answeredBy: "bob" }), 1)).toBe("round 1: agent started with the answer of @bob to gate 1001");
    expect(startLine(1, resume, gate({ answeredBy: "escalation" }), 2)).toBe(
      "round 1: agent started with the defaults taken at timeout to gate 1001 (attempt 2)",
    );
    expect(startLine(1, resume, gate(), 1)).toBe("round 1: agent started with the answer of @unknown to gate 1001");
  });
});

describe("what a round writes when its agent ends", () => {
  it("a finished run: exit 0 and how long, then the suffix", () => {
    expect(endLine(3, run(), [], " · saved")).toBe("round 3: agent finished (exit 0, 1m 35s) · saved");
  });

  it("a failed run: why, the suffix on the summary line, then the output's tail masked and fenced", () => {
    const failed = run({ failed: true, exitCode: 2, tail: [`token ${SECRET}`, "```oops"] });
    expect(endLine(3, failed, [SECRET], " · retrying")).toBe(
      "round 3: agent failed (exit 2) after 1m 35s · retrying\n\n  ```text\n  token ***\n  ʼʼʼoops\n  ```",
    );
    expect(endLine(3, run({ failed: true, timedOut: true }), [])).toBe("round 3: agent timed out and was stopped after 1m 35s");
    expect(endLine(3, run({ failed: true, signal: "SIGKILL", exitCode: undefined }), [])).toBe("round 3: agent was killed by SIGKILL after 1m 35s");
  });

  it("a stopped run says how it was stopped", () => {
    expect(stoppedLine(4, "stopped by @alice with /stop", run({ cancelled: true, failed: true }), " · asked")).toBe(
      "round 4: agent stopped by @alice with /stop (after 1m 35s) · asked",
    );
  });

  it("the question after the last failed attempt shows the output's tail, masked, in a fence it cannot close", () => {
    expect(failureDetails(run({ failed: true, tail: [`token ${SECRET}`, "```"] }), [SECRET])).toBe("Last output lines:\n\n```text\ntoken ***\nʼʼʼ\n```");
    expect(failureDetails(run({ failed: true }), [])).toBe("Last output lines:\n\n```text\n(no output)\n```");
  });
});
