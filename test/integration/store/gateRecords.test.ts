import { describe, expect, it } from "vitest";
import type { RecordedAnswer } from "../../../src/domain.js";
import { validateAsk } from "../../../src/protocol/ask.js";
import { storeRedis } from "../../support/storeRedis.js";
import { answer, newGate, ref, REPO, withIssue } from "./support.js";

const { freshStore } = storeRedis();

describe("GateRecords: opening gates", () => {
  it("opens a gate once per id; a second call is a no-op", async () => {
    const store = await withIssue(freshStore());
    const gate = newGate();
    expect(await store.gates.openGate(gate)).toEqual({ opened: true, superseded: undefined });
    expect(await store.gates.openGate({ ...gate, askedBy: "someone-else" })).toEqual({ opened: false, superseded: undefined });
    const stored = await store.gates.getGate(gate.id);
    expect(stored).toMatchObject({
      id: gate.id,
      repo: REPO,
      issue: 7,
      installationId: 99,
      round: 0,
      askedAt: gate.askedAt,
      askedBy: "agent[bot]",
      askUrl: gate.askUrl,
      state: "open",
      answers: [],
    });
    expect(stored!.ask).toEqual(gate.ask);
    expect(stored!.ask.questions[0]!.default).toBe("SQLite");
    expect((await store.gates.issueGates(ref)).map((g) => g.id)).toEqual([gate.id]);
    expect((await store.issues.getIssue(ref))?.openGate).toBe(gate.id);
  });

  it("concurrent deliveries of the same ask open it exactly once", async () => {
    const store = freshStore();
    const gate = newGate();
    const results = await Promise.all(Array.from({ length: 10 }, () => store.gates.openGate(gate)));
    expect(results.filter((r) => r.opened)).toHaveLength(1);
    expect(await store.gates.issueGates(ref)).toHaveLength(1);
  });

  it("a newer gate supersedes the open one on the same issue", async () => {
    const store = await withIssue(freshStore());
    const older = newGate();
    const newer = newGate();
    await store.gates.openGate(older);
    expect(await store.gates.openGate(newer)).toEqual({ opened: true, superseded: older.id });
    expect(await store.gates.getGate(older.id)).toMatchObject({ state: "superseded", closedReason: "a newer question was asked" });
    expect((await store.gates.getGate(newer.id))?.state).toBe("open");
    expect((await store.gates.openGates()).map((g) => g.id)).toEqual([newer.id]);
    expect((await store.issues.getIssue(ref))?.openGate).toBe(newer.id);
  });

  it("a newer gate does not touch an answered one, nor gates of other issues", async () => {
    const store = freshStore();
    const answered = newGate();
    await store.gates.openGate(answered);
    await store.gates.recordAnswer((await store.gates.getGate(answered.id))!, answer(), "alice", 1, 10);
    const otherIssue = newGate({ issue: 8 });
    await store.gates.openGate(otherIssue);
    expect(await store.gates.openGate(newGate())).toEqual({ opened: true, superseded: undefined });
    expect((await store.gates.getGate(answered.id))?.state).toBe("answered");
    expect((await store.gates.getGate(otherIssue.id))?.state).toBe("open");
  });

  it("getGate of an unknown id is undefined", async () => {
    expect(await freshStore().gates.getGate("nope-nope")).toBeUndefined();
  });
});

describe("GateRecords: recording answers", () => {
  it("recorded, then same for the same comment, taken for another, missing for an unknown gate", async () => {
    const store = await withIssue(freshStore());
    const g = newGate();
    await store.gates.openGate(g);
    const gate = (await store.gates.getGate(g.id))!;
    const recorded = await store.gates.recordAnswer(gate, answer("alice", 500), "alice", 500, 5_000);
    // The gate comes back as recorded: what reading it again would give.
    expect(recorded).toEqual({ outcome: "recorded", reopened: 0, gate: await store.gates.getGate(g.id) });
    expect(recorded).toMatchObject({ gate: { state: "answered", answeredBy: "alice", answerCommentId: 500, answers: answer("alice", 500) } });
    expect(await store.gates.recordAnswer(gate, answer("alice", 500), "alice", 500, 5_001)).toEqual({ outcome: "same", state: "answered", reopened: 0 });
    expect(await store.gates.recordAnswer(gate, answer("bob", 501), "bob", 501, 5_002)).toEqual({ outcome: "taken", state: "answered", answeredBy: "alice" });
    expect(await store.gates.recordAnswer({ ...gate, id: "never-opened" }, answer(), "x", 1, 1)).toEqual({ outcome: "missing" });

    const stored = await store.gates.getGate(g.id);
    expect(stored).toMatchObject({ state: "answered", answeredBy: "alice", answeredAt: 5_000, answerCommentId: 500, answers: answer("alice", 500) });
    expect(await store.gates.openGates()).toEqual([]);
    expect((await store.issues.getIssue(ref))?.openGate).toBeUndefined();
  });

  it("a superseded or cancelled gate cannot be answered", async () => {
    const store = freshStore();
    const older = newGate();
    await store.gates.openGate(older);
    await store.gates.openGate(newGate());
    expect(await store.gates.recordAnswer((await store.gates.getGate(older.id))!, answer(), "alice", 1, 1)).toEqual({
      outcome: "taken",
      state: "superseded",
      answeredBy: "",
    });
    const cancelled = newGate();
    await store.gates.openGate(cancelled);
    await store.gates.cancelGate(cancelled, "issue closed");
    expect(await store.gates.recordAnswer((await store.gates.getGate(cancelled.id))!, answer(), "alice", 2, 2)).toMatchObject({
      outcome: "taken",
      state: "cancelled",
    });
  });

  it("20 concurrent answers from different comments: exactly one is recorded", async () => {
    const store = freshStore();
    const g = newGate();
    await store.gates.openGate(g);
    const gate = (await store.gates.getGate(g.id))!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.gates.recordAnswer(gate, answer(`user${i}`, 1000 + i), `user${i}`, 1000 + i, 6_000 + i)),
    );
    const recorded = results.filter((r) => r.outcome === "recorded");
    expect(recorded).toHaveLength(1);
    const stored = (await store.gates.getGate(g.id))!;
    const winner = stored.answeredBy!;
    for (const r of results) {
      if (r.outcome !== "recorded") expect(r).toEqual({ outcome: "taken", state: "answered", answeredBy: winner });
    }
    expect(stored.answerCommentId).toBe(1000 + Number(winner.replace("user", "")));
    expect(stored.answers[0]!.by).toBe(winner);
  });
});

describe("GateRecords: answers to several questions", () => {
  const twoQuestions = () => {
    const g = newGate();
    g.ask = validateAsk({ v: 1, id: g.id, round: 0, questions: [{ text: "Which database?", options: ["Postgres", "SQLite"] }, { text: "Keep the old API?" }] });
    return g;
  };
  const q = (question: number, text: string, by: string, commentId: number): RecordedAnswer => ({
    question,
    text,
    by,
    at: 1_712_345_678_901 + question,
    source: "human",
    commentId,
    url: `https://github.com/octo/demo/issues/7#issuecomment-${commentId}`,
  });

  it("merges answers from several comments; the gate is answered once every question has one", async () => {
    const store = await withIssue(freshStore());
    const g = twoQuestions();
    await store.gates.openGate(g);
    const gate = (await store.gates.getGate(g.id))!;
    const first = q(0, 'SQLite — ünïcödé 🙋 / "quoted"', "alice", 2_400_000_001);
    expect(await store.gates.recordAnswer(gate, [first], "alice", 2_400_000_001, 10)).toEqual({ outcome: "partial", answers: [first] });
    expect(await store.gates.getGate(g.id)).toMatchObject({ state: "open", answers: [first] });
    expect((await store.gates.openGates()).map((x) => x.id)).toEqual([g.id]);

    const second = q(1, "yes", "bob", 2_400_000_002);
    expect(await store.gates.recordAnswer(gate, [second], "bob", 2_400_000_002, 20)).toMatchObject({ outcome: "recorded", reopened: 0 });
    const stored = (await store.gates.getGate(g.id))!;
    expect(stored).toMatchObject({ state: "answered", answeredBy: "bob", answeredAt: 20, answerCommentId: 2_400_000_002 });
    expect(stored.answers).toEqual([first, second]);
    expect(await store.gates.openGates()).toEqual([]);
    expect((await store.issues.getIssue(ref))?.openGate).toBeUndefined();
  });

  it("a later answer to the same question replaces the earlier one while the gate is open", async () => {
    const store = freshStore();
    const g = twoQuestions();
    await store.gates.openGate(g);
    const gate = (await store.gates.getGate(g.id))!;
    await store.gates.recordAnswer(gate, [q(0, "Postgres", "alice", 1)], "alice", 1, 1);
    expect(await store.gates.recordAnswer(gate, [q(0, "SQLite", "carol", 2)], "carol", 2, 2)).toEqual({
      outcome: "partial",
      answers: [q(0, "SQLite", "carol", 2)],
    });
  });

  it("an empty answer list records nothing", async () => {
    const store = freshStore();
    const g = twoQuestions();
    await store.gates.openGate(g);
    expect(await store.gates.recordAnswer((await store.gates.getGate(g.id))!, [], "alice", 1, 1)).toEqual({ outcome: "partial", answers: [] });
    expect((await store.gates.getGate(g.id))?.state).toBe("open");
  });

  it("accepts a synthetic answering id (a timeout) and recognises its redelivery", async () => {
    const store = freshStore();
    const g = newGate();
    await store.gates.openGate(g);
    const gate = (await store.gates.getGate(g.id))!;
    const byDefault: RecordedAnswer = { question: 0, text: "SQLite", option: "SQLite", optionIndex: 1, by: "escalation", at: 1, source: "default" };
    expect(await store.gates.recordAnswer(gate, [byDefault], "escalation", `timeout-${g.id}`, 1)).toMatchObject({ outcome: "recorded", reopened: 0 });
    expect(await store.gates.recordAnswer(gate, [byDefault], "escalation", `timeout-${g.id}`, 2)).toEqual({ outcome: "same", state: "answered", reopened: 0 });
  });

  it("reviseAnswers: an edited reply replaces its answer before the resume, and for later rounds after it", async () => {
    const store = freshStore();
    const g = newGate();
    await store.gates.openGate(g);
    const gate = (await store.gates.getGate(g.id))!;
    await store.gates.recordAnswer(gate, answer("alice", 500), "alice", 500, 1);
    const edited: RecordedAnswer[] = [{ ...answer("alice", 500)[0]!, text: "1", option: "Postgres", optionIndex: 0 }];
    expect(await store.gates.reviseAnswers(gate, 501, edited, 2)).toEqual({ outcome: "none", state: "answered" }); // not the answering comment
    expect(await store.gates.reviseAnswers(gate, 500, edited, 2)).toEqual({ outcome: "replaced", state: "answered" });
    expect((await store.gates.getGate(g.id))?.answers).toEqual(edited);
    await store.gates.claimResume(g.id, "job-1");
    const redacted: RecordedAnswer[] = [{ ...edited[0]!, text: "Postgres (password removed)" }];
    expect(await store.gates.reviseAnswers(gate, 500, redacted, 3)).toEqual({ outcome: "replaced", state: "resuming" });
    expect(await store.gates.getGate(g.id)).toMatchObject({ state: "resuming", answers: redacted, answerCommentId: 500 });
    expect(await store.gates.reviseAnswers({ ...gate, id: "unknown-gate" }, 500, edited, 4)).toEqual({ outcome: "missing" });
  });
});

describe("GateRecords: cancelling", () => {
  it("cancels an open gate once, clearing it from the inbox and the issue", async () => {
    const store = await withIssue(freshStore());
    const g = newGate();
    await store.gates.openGate(g);
    expect(await store.gates.cancelGate(g, "issue closed")).toBe(true);
    expect(await store.gates.cancelGate(g, "again")).toBe(false);
    expect(await store.gates.getGate(g.id)).toMatchObject({ state: "cancelled", closedReason: "issue closed" });
    expect(await store.gates.openGates()).toEqual([]);
    expect((await store.issues.getIssue(ref))?.openGate).toBeUndefined();
  });

  it("does not cancel an answered or unknown gate", async () => {
    const store = freshStore();
    const g = newGate();
    await store.gates.openGate(g);
    await store.gates.recordAnswer((await store.gates.getGate(g.id))!, answer(), "alice", 1, 1);
    expect(await store.gates.cancelGate(g, "late")).toBe(false);
    expect((await store.gates.getGate(g.id))?.state).toBe("answered");
    expect(await store.gates.cancelGate({ id: "unknown-gate", repo: REPO, issue: 7 }, "x")).toBe(false);
  });

  it("cancelling an old gate leaves the issue's newer open gate alone", async () => {
    const store = await withIssue(freshStore());
    const a = newGate({ issue: 7 });
    const b = newGate({ issue: 7 });
    await store.gates.openGate(a);
    await store.gates.openGate(b); // a is superseded
    expect(await store.gates.cancelGate(a, "x")).toBe(false);
    expect((await store.issues.getIssue(ref))?.openGate).toBe(b.id);
  });
});

describe("GateRecords: listings", () => {
  it("lastGate is the issue's most recent gate, whatever its state", async () => {
    const store = freshStore();
    expect(await store.gates.lastGate(ref)).toBeUndefined();
    const first = newGate();
    const second = newGate();
    await store.gates.openGate(first);
    await store.gates.openGate(second);
    expect((await store.gates.lastGate(ref))?.id).toBe(second.id);
    await store.gates.cancelGate(second, "stop");
    expect(await store.gates.lastGate(ref)).toMatchObject({ id: second.id, state: "cancelled" });
  });

  it("issueGates returns every gate of the issue in ask order, whatever its state", async () => {
    const store = freshStore();
    const gates = [newGate(), newGate(), newGate()];
    for (const g of gates) await store.gates.openGate(g);
    await store.gates.openGate(newGate({ issue: 8 }));
    const listed = await store.gates.issueGates(ref);
    expect(listed.map((g) => g.id)).toEqual(gates.map((g) => g.id));
    expect(listed.map((g) => g.state)).toEqual(["superseded", "superseded", "open"]);
    expect(await store.gates.issueGates({ repo: REPO, issue: 999 })).toEqual([]);
  });

  it("openGates is the inbox: open gates only, oldest ask first, limited", async () => {
    const store = freshStore();
    const late = newGate({ issue: 1, askedAt: 3_000 });
    const early = newGate({ issue: 2, askedAt: 1_000 });
    const middle = newGate({ issue: 3, askedAt: 2_000 });
    const done = newGate({ issue: 4, askedAt: 500 });
    for (const g of [late, early, middle, done]) await store.gates.openGate(g);
    await store.gates.recordAnswer((await store.gates.getGate(done.id))!, answer(), "alice", 1, 1);
    expect((await store.gates.openGates()).map((g) => g.id)).toEqual([early.id, middle.id, late.id]);
    expect((await store.gates.openGates(2)).map((g) => g.id)).toEqual([early.id, middle.id]);
  });
});
