import { describe, expect, it } from "vitest";
import type { Stores } from "../../../src/store/stores.js";
import { storeRedis } from "../../support/storeRedis.js";
import { answer, newGate, ref, withIssue } from "./support.js";

const { redis, freshStore } = storeRedis();

async function answeredGate(store: Stores) {
  const g = newGate();
  await store.gates.openGate(g);
  await store.gates.recordAnswer((await store.gates.getGate(g.id))!, answer(), "alice", 500, 5_000);
  return (await store.gates.getGate(g.id))!;
}

describe("GateRecords: resuming", () => {
  it("a gate is claimed once across jobs, but the same job may re-claim it (a retry)", async () => {
    const store = freshStore();
    const g = await answeredGate(store);
    expect(await store.gates.claimResume(g.id, "job-A")).toBe(true);
    expect((await store.gates.getGate(g.id))?.state).toBe("resuming");
    expect(await store.gates.claimResume(g.id, "job-B")).toBe(false);
    expect(await store.gates.claimResume(g.id, "job-A")).toBe(true);
    await store.gates.markResumed(g.id, 9_000);
    expect(await store.gates.getGate(g.id)).toMatchObject({ state: "resumed", resumedAt: 9_000 });
    expect(await store.gates.claimResume(g.id, "job-A")).toBe(true);
    expect(await store.gates.claimResume(g.id, "job-B")).toBe(false);
  });

  it("concurrent jobs: exactly one claims", async () => {
    const store = freshStore();
    const g = await answeredGate(store);
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => store.gates.claimResume(g.id, `job-${i}`)));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it.each<[string]>([["open"], ["cancelled"], ["missing"]])("a %s gate cannot be claimed", async (state) => {
    const store = freshStore();
    const g = newGate();
    if (state !== "missing") await store.gates.openGate(g);
    if (state === "cancelled") await store.gates.cancelGate(g, "stop");
    expect(await store.gates.claimResume(g.id, "job-1")).toBe(false);
  });
});

describe("GateRecords: superseded questions and the reminder ladder", () => {
  it("supersedes only an open gate, takes it out of the open set, and keeps the first late answer once", async () => {
    const store = await withIssue(freshStore());
    const gate = newGate();
    await store.gates.openGate(gate);
    expect(await store.gates.supersedeGate(gate, "the question was edited at T")).toBe(true);
    expect(await store.gates.supersedeGate(gate, "again")).toBe(false);
    expect(await store.gates.getGate(gate.id)).toMatchObject({ state: "superseded", closedReason: "the question was edited at T" });
    expect(await store.gates.openGates()).toEqual([]);
    expect((await store.issues.getIssue(ref))?.openGate).toBeUndefined();

    expect(await store.gates.recordSupersededAnswer(gate.id, answer("alice", 501), "alice", 5_000, 501)).toBe("recorded");
    expect(await store.gates.recordSupersededAnswer(gate.id, answer("alice", 501), "alice", 5_000, 501)).toBe("same");
    expect(await store.gates.recordSupersededAnswer(gate.id, answer("bob", 502), "bob", 6_000, 502)).toBe("taken");
    expect(await store.gates.getGate(gate.id)).toMatchObject({
      state: "superseded",
      answeredBy: "alice",
      answerCommentId: 501,
      answers: [{ option: "SQLite", by: "alice" }],
    });

    const open = newGate();
    await store.gates.openGate(open);
    expect(await store.gates.recordSupersededAnswer(open.id, answer(), "alice", 5_000, 503)).toBe("open");
  });

  it("marks an open gate overdue once (the first time counts) and never a settled one", async () => {
    const store = await withIssue(freshStore());
    const gate = newGate();
    await store.gates.openGate(gate);
    expect(await store.gates.markOverdue(gate.id, 10_000)).toBe(true);
    expect(await store.gates.markOverdue(gate.id, 20_000)).toBe(true);
    expect((await store.gates.getGate(gate.id))?.overdueAt).toBe(10_000);
    await store.gates.cancelGate(gate, "closed");
    expect(await store.gates.markOverdue(gate.id, 30_000)).toBe(false);
  });

  it("remembers posted ladder steps, also seeded before the gate exists (a rebuild)", async () => {
    const store = freshStore();
    await store.gates.markLadderStepsPosted("gate-ladder-1", [0, 2]);
    expect(await store.gates.ladderStepPosted("gate-ladder-1", 0)).toBe(true);
    expect(await store.gates.ladderStepPosted("gate-ladder-1", 1)).toBe(false);
    expect(await store.gates.ladderStepPosted("gate-ladder-1", 2)).toBe(true);
    const gate = newGate({ id: "gate-ladder-1" });
    expect((await (await withIssue(store)).gates.openGate(gate)).opened).toBe(true);
  });
});

describe("GateRecords: a resume's round runs to its end once", () => {
  it("the gate stays resuming while the round runs and becomes resumed when it ends", async () => {
    const store = freshStore();
    const gate = await answeredGate(store);
    expect(await store.gates.claimResume(gate.id, "resume-1")).toBe(true);
    expect((await store.gates.getGate(gate.id))?.state).toBe("resuming");
    await store.gates.finishResume(gate, 9_000);
    expect(await store.gates.getGate(gate.id)).toMatchObject({ state: "resumed", resumedAt: 9_000, answerCommentId: 500 });
  });

  it("a gate Redis lost while its agent ran is restored as resumed, answers and all", async () => {
    const store = freshStore();
    const gate = await answeredGate(store);
    await store.gates.claimResume(gate.id, "resume-1");
    await redis().del(store.gates.keys.gate(gate.id), store.gates.keys.issueGates(gate)); // the wipe
    await store.gates.finishResume(gate, 9_000);
    expect(await store.gates.getGate(gate.id)).toMatchObject({ id: gate.id, state: "resumed", answers: answer(), answeredBy: "alice" });
    expect((await store.gates.issueGates(gate)).map((g) => g.id)).toEqual([gate.id]);
  });
});
