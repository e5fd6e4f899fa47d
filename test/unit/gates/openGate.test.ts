import { describe, expect, it } from "vitest";
import type { Ask } from "../../../src/domain.js";
import { openGate, type OpenGatePorts } from "../../../src/gates/openGate.js";
import type { CommentEvent } from "../../../src/payloads.js";
import { ask, common, FakeFeedback, FakeRecords, quietLog, recordedEvents, settings } from "../../support/gateFakes.js";

/** openGate against in-memory ports: the delayed jobs it schedules are recorded, not queued. */
function world() {
  const records = new FakeRecords();
  const feedback = new FakeFeedback(records);
  const { events, seen } = recordedEvents();
  const timeouts: Array<{ gateId: string; delayMs: number }> = [];
  const ladder: number[] = [];
  const base = feedback.ports();
  const ports: OpenGatePorts = {
    ...base,
    events,
    codeowners: () => Promise.resolve(undefined),
    rounds: { currentRound: () => Promise.resolve(2) },
    gates: records.gates,
    queues: {
      feedback: base.queues.feedback,
      addTimeout: (gateId, delayMs) => Promise.resolve(void timeouts.push({ gateId, delayMs })),
      addLadderStep: (job) => Promise.resolve(void ladder.push(job.step)),
    },
    log: quietLog,
  };
  return { records, feedback, seen, timeouts, ladder, ports };
}

const asked = (commentId: number, a: Ask = ask()): [CommentEvent, Ask] => [
  {
    ...common(),
    kind: "comment",
    action: "created",
    comment: {
      id: commentId,
      body: "ask",
      url: `https://github.test/c/${commentId}`,
      createdAt: new Date(Date.now()).toISOString(),
      author: { login: "escalation[bot]", type: "Bot" },
    },
  },
  a,
];

describe("openGate: an agent's ask arrived", () => {
  it("records an open gate in the current round, labels the issue, and schedules its timeout", async () => {
    const { records, feedback, seen, timeouts, ports } = world();
    const [event, a] = asked(1001);
    expect(await openGate(ports, event, a, { ...settings, defaultTimeoutSeconds: 3600 })).toEqual({ kind: "gateOpened", gateId: "1001" });
    expect(await records.gates.getGate("1001")).toMatchObject({
      state: "open",
      round: 2,
      askedBy: "escalation[bot]",
      answerers: { users: [], teams: [], minimumPermission: "write" },
    });
    expect(feedback.writes).toEqual([{ key: "gate-open-1001", ops: [{ type: "addLabel", label: "awaiting-human" }] }]);
    expect(feedback.lines).toEqual(["round 2: the agent asked a question ([gate 1001](https://github.test/c/1001)); waiting for a human answer"]);
    expect(seen).toMatchObject([{ name: "gate.opened", args: { gate: { id: "1001", state: "open" } } }]);
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]!.gateId).toBe("1001");
    expect(timeouts[0]!.delayMs).toBeGreaterThan(3590_000);
  });

  it("schedules no timeout without one, and every step of the reminder ladder", async () => {
    const { timeouts, ladder, ports } = world();
    const ladderSettings = {
      ...settings,
      reminderLadder: [
        { afterSeconds: 60, mention: ["assignees" as const] },
        { afterSeconds: 600, then: "overdue" as const },
      ],
    };
    await openGate(ports, ...asked(1001), ladderSettings);
    expect(timeouts).toEqual([]);
    expect(ladder).toEqual([0, 1]);
  });

  it("is a no-op for the same ask delivered again", async () => {
    const { feedback, seen, ports } = world();
    await openGate(ports, ...asked(1001), settings);
    expect(await openGate(ports, ...asked(1001), settings)).toEqual({ kind: "gateAlreadyOpen", gateId: "1001" });
    expect(feedback.writes).toHaveLength(1);
    expect(seen.map((e) => e.name)).toEqual(["gate.opened"]);
  });

  it("a newer ask supersedes the unanswered one, and says so", async () => {
    const { records, feedback, seen, ports } = world();
    await openGate(ports, ...asked(1001), settings);
    expect(await openGate(ports, ...asked(1002, ask("And the port?")), settings)).toEqual({ kind: "gateOpened", gateId: "1002" });
    expect((await records.gates.getGate("1001"))?.state).toBe("superseded");
    expect(seen).toMatchObject([
      { name: "gate.opened", args: { gate: { id: "1001" } } },
      { name: "gate.opened", args: { gate: { id: "1002" } } },
      { name: "gate.closed", args: { gate: { id: "1001" }, state: "superseded" } },
    ]);
    expect(feedback.lines.at(-1)).toContain("replacing unanswered gate 1001");
  });
});
