import { describe, expect, it } from "vitest";
import { processTimeout, type TimeoutPorts } from "../../../src/gates/timeouts.js";
import type { SpawnJob } from "../../../src/payloads.js";
import { ask, FakeFeedback, FakeRecords, gate, quietLog, recordedEvents, settings } from "../../support/gateFakes.js";

/** processTimeout against in-memory ports: the spawn and timeout jobs it queues are recorded. */
function world() {
  const records = new FakeRecords();
  const feedback = new FakeFeedback(records);
  const { events, seen } = recordedEvents();
  const spawns: Array<{ job: SpawnJob; id: string }> = [];
  const timeouts: string[] = [];
  const base = feedback.ports();
  const ports: TimeoutPorts = {
    ...base,
    events,
    settings: () => Promise.resolve({ settings }),
    gates: { ...records.gates, reviseAnswers: () => Promise.reject(new Error("no answer is withdrawn here")) },
    commentMarks: { commentWasDeleted: () => Promise.resolve(false) },
    queues: {
      addSpawn: (job, id) => Promise.resolve(void spawns.push({ job, id })),
      addTimeout: (gateId) => Promise.resolve(void timeouts.push(gateId)),
      forgetDelivery: () => Promise.resolve(0),
      feedback: { ...base.queues.feedback, remove: () => Promise.resolve(0) },
    },
    log: quietLog,
  };
  return { records, feedback, seen, spawns, timeouts, ports };
}

/** A gate asked an hour ago whose questions time out after a minute. */
const due = (questions: Array<{ text: string; default?: string }>) =>
  gate({ id: "1001", askedAt: Date.now() - 3600_000, ask: { ...ask(), timeoutSeconds: 60, questions: questions.map((q) => ({ options: [], ...q })) } });

const comments = (f: FakeFeedback) => f.writes.flatMap((w) => w.ops).flatMap((op) => (op.type === "comment" ? [op.body] : []));

describe("processTimeout: an open gate's timeout passed", () => {
  it("takes the default, says so in a comment, and queues the resume once", async () => {
    const { records, feedback, seen, spawns, ports } = world();
    records.add(due([{ text: "Which database?", default: "Postgres" }]));
    expect(await processTimeout(ports, "1001", 0)).toEqual({ kind: "answerRecorded" });
    expect(await records.gates.getGate("1001")).toMatchObject({
      state: "answered",
      answeredBy: "escalation",
      answers: [{ question: 0, text: "Postgres", source: "default" }],
    });
    expect(spawns).toMatchObject([{ id: expect.stringContaining("1001") as string, job: { trigger: { type: "resume", gateId: "1001" } } }]);
    expect(seen).toMatchObject([{ name: "gate.answered", args: { source: "default" } }]);
    expect(comments(feedback)).toEqual([expect.stringMatching(/^⏰ No answer by .*; proceeding with \*\*Postgres\*\* \(the default\)/)]);
  });

  it("takes what defaults there are and reminds of the rest: the gate stays open", async () => {
    const { records, feedback, spawns, ports } = world();
    records.add(due([{ text: "Which database?", default: "Postgres" }, { text: "Which port?" }]));
    expect(await processTimeout(ports, "1001", 0)).toEqual({ kind: "answerPartial" });
    expect((await records.gates.getGate("1001"))?.state).toBe("open");
    expect(spawns).toEqual([]);
    const said = comments(feedback);
    expect(said.some((c) => c.startsWith("⏰ No answer by") && c.includes("question 1: **Postgres**"))).toBe(true);
    expect(said.some((c) => c.startsWith("⏰ Reminder") && c.includes("**Which port?**") && !c.includes("Which database?"))).toBe(true);
  });

  it("only reminds when no question has a default", async () => {
    const { records, feedback, spawns, ports } = world();
    records.add(due([{ text: "Which port?" }]));
    expect(await processTimeout(ports, "1001", 3)).toEqual({ kind: "reminded" });
    expect((await records.gates.getGate("1001"))?.answers).toEqual([]);
    expect(spawns).toEqual([]);
    expect(feedback.writes.map((w) => w.key)).toEqual(["timeout-reminder-1001-3"]);
  });

  it("does nothing once the gate is no longer open, or gone", async () => {
    const { records, feedback, spawns, timeouts, ports } = world();
    records.add({ ...due([{ text: "Which database?", default: "Postgres" }]), state: "answered" });
    expect(await processTimeout(ports, "1001", 0)).toEqual({ kind: "gateNoLongerOpen" });
    expect(await processTimeout(ports, "404", 0)).toEqual({ kind: "gateNoLongerOpen" });
    expect([feedback.writes, feedback.lines, spawns, timeouts]).toEqual([[], [], [], []]);
  });
});
