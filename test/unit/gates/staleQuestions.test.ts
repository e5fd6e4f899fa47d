import { describe, expect, it } from "vitest";
import { commitsPushed, questionEdited, type StaleQuestionPorts } from "../../../src/gates/staleQuestions.js";
import type { CommentEvent, PushedEvent } from "../../../src/payloads.js";
import { common, FakeFeedback, FakeRecords, gate, recordedEvents, settings } from "../../support/gateFakes.js";

/** questionEdited and commitsPushed against in-memory ports: no Redis, no GitHub. */
function world() {
  const records = new FakeRecords();
  const feedback = new FakeFeedback(records);
  const { events, seen } = recordedEvents();
  const ports: StaleQuestionPorts = { ...feedback.ports(), events, gates: records.gates };
  return { records, feedback, seen, ports };
}

const questionEdit = (commentId: number): CommentEvent => ({
  ...common(),
  kind: "comment",
  action: "edited",
  comment: {
    id: commentId,
    body: "edited ask",
    url: `https://github.test/c/${commentId}`,
    createdAt: "2026-12-01T10:00:00Z",
    author: { login: "escalation[bot]", type: "Bot" },
  },
});

const push = (pushedAt: number, isPullRequest = true): PushedEvent => ({ ...common({ isPullRequest }), kind: "pushed", headSha: "0123456789abcdef", pushedAt });

describe("questionEdited: the agent's question comment was edited", () => {
  it("supersedes its open gate: the label comes off, the status says why, observers hear of it", async () => {
    const { records, feedback, seen, ports } = world();
    records.add(gate({ id: "1001" }));
    expect(await questionEdited(ports, questionEdit(1001), settings)).toEqual({ kind: "gateSuperseded", why: "question edited" });
    expect((await records.gates.getGate("1001"))?.state).toBe("superseded");
    expect(feedback.writes.flatMap((w) => w.ops)).toEqual([{ type: "removeLabel", label: "awaiting-human" }]);
    expect(feedback.lines).toEqual(["gate 1001 superseded: the question was edited at 2026-12-01T11:00:00Z; an answer to it will be recorded but not resumed"]);
    expect(seen).toMatchObject([{ name: "gate.closed", args: { state: "superseded", gate: { id: "1001" } } }]);
  });

  it("leaves a question that is no longer open alone, and says nothing", async () => {
    const { records, feedback, seen, ports } = world();
    records.add(gate({ id: "1001", state: "answered" }));
    expect(await questionEdited(ports, questionEdit(1001), settings)).toEqual({ kind: "ignored", reason: "edit of a question that is not open" });
    expect((await records.gates.getGate("1001"))?.state).toBe("answered");
    expect([feedback.lines, feedback.writes, seen]).toEqual([[], [], []]);
  });

  it("says nothing when the gate settled between the read and the supersede", async () => {
    const { records, feedback, seen, ports } = world();
    records.add(gate({ id: "1001" }));
    records.settleFirst = true;
    expect(await questionEdited(ports, questionEdit(1001), settings)).toEqual({ kind: "ignored", reason: "gate already settled" });
    expect([feedback.lines, feedback.writes, seen]).toEqual([[], [], []]);
  });
});

describe("commitsPushed: new commits on a pull request with an open question", () => {
  const askedAt = gate().askedAt;

  it("supersedes the question asked before the push, naming the commit", async () => {
    const { records, feedback, ports } = world();
    records.add(gate({ id: "1001" }));
    expect(await commitsPushed(ports, push(askedAt + 60_000), settings)).toEqual({ kind: "gateSuperseded", why: "new commits" });
    expect((await records.gates.getGate("1001"))?.closedReason).toBe("new commits were pushed at 2026-12-01T10:01:00Z (0123456)");
    expect(feedback.writes.flatMap((w) => w.ops)).toEqual([{ type: "removeLabel", label: "awaiting-human" }]);
  });

  it("keeps a question asked in the push's own second or later: the commits may have come first", async () => {
    const { records, feedback, ports } = world();
    records.add(gate({ id: "1001" }));
    expect(await commitsPushed(ports, push(askedAt), settings)).toEqual({ kind: "ignored", reason: "the commits came before the question" });
    expect((await records.gates.getGate("1001"))?.state).toBe("open");
    expect(feedback.writes).toEqual([]);
  });

  it("ignores pushes to an issue, and pushes while no question is open", async () => {
    const { records, ports } = world();
    records.add(gate({ id: "1001" }));
    expect(await commitsPushed(ports, push(askedAt + 60_000, false), settings)).toEqual({ kind: "ignored", reason: "not a pull request" });
    expect((await records.gates.getGate("1001"))?.state).toBe("open");
    const empty = world();
    expect(await commitsPushed(empty.ports, push(askedAt + 60_000), settings)).toEqual({ kind: "ignored", reason: "no open question" });
  });
});
