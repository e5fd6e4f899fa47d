import { describe, expect, it } from "vitest";
import type { Gate, RecordedAnswer } from "../../../src/domain.js";
import type { Stores } from "../../../src/store/stores.js";
import { gateFixture, newGate } from "../../support/gates.js";
import { storeRedis } from "../../support/storeRedis.js";
import { everything, SECRET } from "./support.js";

const { redis, freshStore } = storeRedis();
const reply = (question: number, text: string, commentId: number, by = "alice"): RecordedAnswer => ({
  question,
  text,
  by,
  at: 5_000,
  source: "human",
  commentId,
});

async function opened(store: Stores, questions = 1): Promise<Gate> {
  const fixture = gateFixture({
    id: String(1000 + Math.floor(Math.random() * 1e6)),
    ask: { questions: Array.from({ length: questions }, (_, i) => ({ text: `Question ${i + 1}?`, options: [] })) },
  });
  await store.gates.openGate(newGate(fixture));
  return (await store.gates.getGate(fixture.id))!;
}

describe("GateRecords.reviseAnswers: a deleted answer is withdrawn", () => {
  it("before the resume claimed it: the gate is open again, the spawn's claim fails, the next answer gets a fresh resume id", async () => {
    const store = freshStore();
    const gate = await opened(store);
    expect(await store.gates.recordAnswer(gate, [reply(0, SECRET, 500)], "alice", 500, 5_000)).toMatchObject({ outcome: "recorded", reopened: 0 });

    expect(await store.gates.reviseAnswers(gate, 500, [], 6_000)).toEqual({ outcome: "reopened", state: "open" });
    const reopened = (await store.gates.getGate(gate.id))!;
    expect(reopened).toMatchObject({ state: "open", answers: [], withdrawn: [{ by: "alice", at: 6_000, questions: [0] }], reopened: 1 });
    expect(reopened.answeredBy).toBeUndefined();
    expect(reopened.answerCommentId).toBeUndefined();
    expect((await store.gates.openGates()).map((g) => g.id)).toEqual([gate.id]);
    expect((await store.issues.getIssue(gate))?.openGate ?? (await redis().hget(store.issues.key(gate), "openGate"))).toBe(gate.id);
    // The spawn queued for the withdrawn answer starts nothing.
    expect((await store.rounds.beginRound(gate, "resume-job", { claimGate: gate.id })).claim).toBe("open");

    expect(await store.gates.recordAnswer(reopened, [reply(0, "SQLite", 502, "bob")], "bob", 502, 7_000)).toMatchObject({ outcome: "recorded", reopened: 1 });
    expect(await store.gates.recordAnswer(reopened, [reply(0, "SQLite", 502, "bob")], "bob", 502, 7_000)).toEqual({
      outcome: "same",
      state: "answered",
      reopened: 1,
    });
    expect((await store.rounds.beginRound(gate, "resume-job-r1", { claimGate: gate.id })).claim).toBe("claimed");
    expect(await everything(redis(), store)).not.toContain(SECRET);
  });

  it("after the spawn claimed the gate: withdrawing keeps the round but removes the text for later rounds", async () => {
    const store = freshStore();
    const gate = await opened(store);
    await store.gates.recordAnswer(gate, [reply(0, SECRET, 500)], "alice", 500, 5_000);
    expect((await store.rounds.beginRound(gate, "resume-job", { claimGate: gate.id })).claim).toBe("claimed");

    expect(await store.gates.reviseAnswers(gate, 500, [], 6_000)).toEqual({ outcome: "replaced", state: "resuming" });
    expect(await store.gates.getGate(gate.id)).toMatchObject({ state: "resuming", answers: [], withdrawn: [{ by: "alice", questions: [0] }] });
    expect((await store.gates.getGate(gate.id))?.reopened).toBeUndefined();
    expect(await everything(redis(), store)).not.toContain(SECRET);
    // A second delivery of the deletion finds nothing left to withdraw.
    expect(await store.gates.reviseAnswers(gate, 500, [], 6_001)).toEqual({ outcome: "none", state: "resuming" });
  });

  it("one of several answering comments: only its answers go, and the gate waits for just that question", async () => {
    const store = freshStore();
    const gate = await opened(store, 2);
    await store.gates.recordAnswer(gate, [reply(0, SECRET, 500)], "alice", 500, 5_000);
    expect((await store.gates.recordAnswer(gate, [reply(1, "yes", 501, "bob")], "bob", 501, 5_100)).outcome).toBe("recorded");

    expect(await store.gates.reviseAnswers(gate, 500, [], 6_000)).toEqual({ outcome: "reopened", state: "open" });
    expect((await store.gates.getGate(gate.id))?.answers).toEqual([reply(1, "yes", 501, "bob")]);
    // Q1 answered again completes the gate, with a resume id of its own.
    expect(await store.gates.recordAnswer(gate, [reply(0, "SQLite", 502)], "alice", 502, 7_000)).toMatchObject({ outcome: "recorded", reopened: 1 });
    expect((await store.gates.getGate(gate.id))?.answers.map((a) => a.text)).toEqual(["SQLite", "yes"]);
  });

  it("is atomic against the claim: of a withdrawal and a claim racing, exactly one wins", async () => {
    for (let i = 0; i < 20; i++) {
      const store = freshStore();
      const gate = await opened(store);
      await store.gates.recordAnswer(gate, [reply(0, SECRET, 500)], "alice", 500, 5_000);
      const [start, revised] = await Promise.all([
        store.rounds.beginRound(gate, "resume-job", { claimGate: gate.id }),
        store.gates.reviseAnswers(gate, 500, [], 6_000),
      ]);
      const state = (await store.gates.getGate(gate.id))!.state;
      if (start.claim === "claimed") {
        expect(revised).toEqual({ outcome: "replaced", state: "resuming" });
        expect(state).toBe("resuming");
      } else {
        expect(start.claim).toBe("open");
        expect(revised).toEqual({ outcome: "reopened", state: "open" });
        expect(state).toBe("open");
      }
    }
  });

  it("an answered gate a newer question overtook is superseded, not reopened", async () => {
    const store = freshStore();
    const gate = await opened(store);
    await store.gates.recordAnswer(gate, [reply(0, SECRET, 500)], "alice", 500, 5_000);
    await opened(store); // e.g. a /reopen correction asked meanwhile
    expect(await store.gates.reviseAnswers(gate, 500, [], 6_000)).toEqual({ outcome: "reopened", state: "superseded" });
    expect((await store.gates.openGates()).map((g) => g.id)).not.toContain(gate.id);
  });

  it("an edit that still answers replaces the text in any state and records no withdrawal", async () => {
    const store = freshStore();
    const gate = await opened(store);
    await store.gates.recordAnswer(gate, [reply(0, `use ${SECRET}`, 500)], "alice", 500, 5_000);
    await store.rounds.beginRound(gate, "resume-job", { claimGate: gate.id });
    await store.gates.finishResume(gate, 5_500);
    expect(await store.gates.reviseAnswers(gate, 500, [reply(0, "use the vault", 500)], 6_000)).toEqual({ outcome: "replaced", state: "resumed" });
    const revised = (await store.gates.getGate(gate.id))!;
    expect(revised.answers.map((a) => a.text)).toEqual(["use the vault"]);
    expect(revised.withdrawn).toBeUndefined();
    expect(await everything(redis(), store)).not.toContain(SECRET);
  });
});
