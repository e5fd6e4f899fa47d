import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GateStore } from "../../../src/gates/store.js";
import type { RecordedAnswer } from "../../../src/gates/types.js";
import { gateFixture, newGate } from "../../support/gates.js";
import { storeRedis } from "../../support/storeRedis.js";

const { redis, freshStore } = storeRedis();
const answer: RecordedAnswer[] = [{ question: 0, text: "2", option: "SQLite", optionIndex: 1, by: "alice", at: 5_000, source: "human", commentId: 500 }];

async function answeredGate(store: GateStore) {
  const fixture = gateFixture({ id: `g-${randomUUID().slice(0, 6)}` });
  await store.openGate(newGate(fixture));
  await store.recordAnswer((await store.getGate(fixture.id))!, answer, "alice", 500, 5_000);
  return (await store.getGate(fixture.id))!;
}

describe("GateStore: a resume's round runs to its end once", () => {
  it("the gate stays resuming while the round runs and becomes resumed when it ends", async () => {
    const store = freshStore();
    const gate = await answeredGate(store);
    expect(await store.claimResume(gate.id, "resume-1")).toBe(true);
    expect((await store.getGate(gate.id))?.state).toBe("resuming");
    await store.finishResume(gate, 9_000);
    expect(await store.getGate(gate.id)).toMatchObject({ state: "resumed", resumedAt: 9_000, answerCommentId: 500 });
  });

  it("a gate Redis lost while its agent ran is restored as resumed, answers and all", async () => {
    const store = freshStore();
    const gate = await answeredGate(store);
    await store.claimResume(gate.id, "resume-1");
    await redis().del(store.keys.gate(gate.id), store.keys.issueGates(gate)); // the wipe
    await store.finishResume(gate, 9_000);
    expect(await store.getGate(gate.id)).toMatchObject({ id: gate.id, state: "resumed", answers: answer, answeredBy: "alice" });
    expect((await store.issueGates(gate)).map((g) => g.id)).toEqual([gate.id]);
  });

  it("remembers which spawn jobs ran their round to the end, per issue", async () => {
    const store = freshStore();
    const ref = { repo: "Acme/Widgets", issue: 12 };
    expect(await store.roundDone(ref, "dispatch-1")).toBe(false);
    await store.markRoundDone(ref, "dispatch-1");
    expect(await store.roundDone({ repo: "acme/widgets", issue: 12 }, "dispatch-1")).toBe(true);
    expect(await store.roundDone(ref, "dispatch-2")).toBe(false);
    expect(await store.roundDone({ ...ref, issue: 13 }, "dispatch-1")).toBe(false);
  });
});

describe("GateStore: rounds after Redis lost the counter", () => {
  it("a resume's round is never below the round after the one that asked", async () => {
    const store = freshStore();
    const ref = { repo: "acme/widgets", issue: 12 };
    expect(await store.allocateRound(ref, "resume-g1", 1000, 3)).toBe(3); // the counter was lost: 0 would repeat round 0
    expect(await store.allocateRound(ref, "dispatch-2", 1000)).toBe(4);
    expect(await store.allocateRound(ref, "resume-g1", 1000, 3)).toBe(3); // a retry keeps its round
    expect(await store.allocateRound(ref, "resume-g2", 1000, 1)).toBe(5); // a floor below the counter changes nothing
    expect(await store.allocateRound(ref, "resume-g3", 6, 9)).toBeUndefined(); // the limit still holds
  });
});
