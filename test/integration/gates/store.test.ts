import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GateStore, type NewGate } from "../../../src/gates/store.js";
import type { RecordedAnswer } from "../../../src/gates/types.js";
import { validateAsk } from "../../../src/protocol/ask.js";
import { storeRedis } from "../../support/storeRedis.js";

const { redis, freshStore } = storeRedis();
/** The loop records the issue before it opens a gate; getIssue needs that record. */
const withIssue = async (store: GateStore, issue = 7) => {
  await store.upsertIssue({ repo: REPO, issue, installationId: 99, title: "Add a cache", body: "", url: `https://x/${issue}`, assignees: [] });
  return store;
};
const REPO = "Octo/Demo";
/** A round limit no test reaches, except the one about limits. */
const LIMIT = 1000;
const ref = { repo: REPO, issue: 7 };
let seq = 0;

function newGate(over: Partial<NewGate> = {}): NewGate {
  const id = over.id ?? `gate-${++seq}-${randomUUID().slice(0, 6)}`;
  return {
    id,
    repo: REPO,
    issue: 7,
    installationId: 99,
    round: 0,
    ask: validateAsk({ v: 1, id, round: over.round ?? 0, questions: [{ text: "Which database?", options: ["Postgres", "SQLite"], default: "2" }] }),
    askedAt: 1_000 + seq,
    askedBy: "agent[bot]",
    askUrl: `https://github.com/${REPO}/issues/7#issuecomment-${seq}`,
    ...over,
  };
}

const answer = (by = "alice", commentId = 500): RecordedAnswer[] => [
  { question: 0, text: "2", option: "SQLite", optionIndex: 1, by, at: 5_000, source: "human", commentId },
];

describe("GateStore: issues", () => {
  it("upserts an issue and reads it back, case-insensitively by repo", async () => {
    const store = freshStore();
    expect(await store.getIssue(ref)).toBeUndefined();
    await store.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "Add a cache", body: "", url: "https://x/7", assignees: ["alice", "bob"] });
    expect(await store.getIssue({ repo: "octo/demo", issue: 7 })).toEqual({
      repo: REPO,
      issue: 7,
      installationId: 99,
      title: "Add a cache",
      body: "",
      url: "https://x/7",
      assignees: ["alice", "bob"],
      state: "open",
      openGate: undefined,
      nextRound: 0,
      statusCommentId: undefined,
    });
    expect(await store.getIssue({ repo: REPO, issue: 8 })).toBeUndefined();
  });

  it("an upsert keeps the open gate, rounds and status comment", async () => {
    const store = freshStore();
    await store.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "v1", body: "b1", url: "u", assignees: ["alice"] });
    const gate = newGate();
    await store.openGate(gate);
    await store.allocateRound(ref, "job-1", LIMIT);
    await store.setStatusCommentId(ref, 1234);
    await store.upsertIssue({ repo: REPO, issue: 7, installationId: 100, title: "v2", body: "b2", url: "u", assignees: [] });
    expect(await store.getIssue(ref)).toMatchObject({ title: "v2", body: "b2", installationId: 100, assignees: [], openGate: gate.id, nextRound: 1, statusCommentId: 1234 });
  });

  it("keeps the author's body through another's edits and later upserts, until the author edits it", async () => {
    const store = await withIssue(freshStore());
    await store.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "t", body: "A1", url: "u", assignees: [] });
    await store.issueBodyEdited(ref, { body: "X1", byAuthor: false, editor: "escalation[bot]", previous: "A1" });
    // A second foreign edit keeps the author's version, not the first foreign one.
    await store.issueBodyEdited(ref, { body: "X2", byAuthor: false, editor: "admin", previous: "X1" });
    await store.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "t", body: "X2", url: "u", assignees: [] });
    expect(await store.getIssue(ref)).toMatchObject({ body: "X2", bodyEdit: { editor: "admin", authorBody: "A1" } });
    expect((await store.roundContext(ref)).issue?.bodyEdit).toEqual({ editor: "admin", authorBody: "A1" });
    await store.issueBodyEdited(ref, { body: "A2", byAuthor: true, editor: "alice", previous: "X2" });
    const own = await store.getIssue(ref);
    expect(own?.body).toBe("A2");
    expect(own).not.toHaveProperty("bodyEdit");
  });

  it("a rebuild's upsert sets, or clears, who changed the body; one without it leaves it", async () => {
    const store = await withIssue(freshStore());
    const rebuilt = { repo: REPO, issue: 7, installationId: 99, title: "t", body: "X", url: "u", assignees: [] };
    await store.upsertIssue({ ...rebuilt, bodyEdit: { editor: "escalation" } });
    expect((await store.getIssue(ref))?.bodyEdit).toEqual({ editor: "escalation" });
    await store.upsertIssue({ ...rebuilt, bodyEdit: { editor: "escalation", authorBody: "" } });
    expect((await store.getIssue(ref))?.bodyEdit).toEqual({ editor: "escalation", authorBody: "" });
    await store.upsertIssue(rebuilt);
    expect((await store.getIssue(ref))?.bodyEdit).toEqual({ editor: "escalation", authorBody: "" });
    await store.upsertIssue({ ...rebuilt, bodyEdit: { editor: "admin" } });
    expect((await store.getIssue(ref))?.bodyEdit).toEqual({ editor: "admin" });
    await store.upsertIssue({ ...rebuilt, bodyEdit: null });
    expect(await store.getIssue(ref)).not.toHaveProperty("bodyEdit");
  });
});

describe("GateStore: opening gates", () => {
  it("opens a gate once per id; a second call is a no-op", async () => {
    const store = await withIssue(freshStore());
    const gate = newGate();
    expect(await store.openGate(gate)).toEqual({ opened: true, superseded: undefined });
    expect(await store.openGate({ ...gate, askedBy: "someone-else" })).toEqual({ opened: false, superseded: undefined });
    const stored = await store.getGate(gate.id);
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
    expect((await store.issueGates(ref)).map((g) => g.id)).toEqual([gate.id]);
    expect((await store.getIssue(ref))?.openGate).toBe(gate.id);
  });

  it("concurrent deliveries of the same ask open it exactly once", async () => {
    const store = freshStore();
    const gate = newGate();
    const results = await Promise.all(Array.from({ length: 10 }, () => store.openGate(gate)));
    expect(results.filter((r) => r.opened)).toHaveLength(1);
    expect(await store.issueGates(ref)).toHaveLength(1);
  });

  it("a newer gate supersedes the open one on the same issue", async () => {
    const store = await withIssue(freshStore());
    const older = newGate();
    const newer = newGate();
    await store.openGate(older);
    expect(await store.openGate(newer)).toEqual({ opened: true, superseded: older.id });
    expect(await store.getGate(older.id)).toMatchObject({ state: "superseded", closedReason: "a newer question was asked" });
    expect((await store.getGate(newer.id))?.state).toBe("open");
    expect((await store.openGates()).map((g) => g.id)).toEqual([newer.id]);
    expect((await store.getIssue(ref))?.openGate).toBe(newer.id);
  });

  it("a newer gate does not touch an answered one, nor gates of other issues", async () => {
    const store = freshStore();
    const answered = newGate();
    await store.openGate(answered);
    await store.recordAnswer((await store.getGate(answered.id))!, answer(), "alice", 1, 10);
    const otherIssue = newGate({ issue: 8 });
    await store.openGate(otherIssue);
    expect(await store.openGate(newGate())).toEqual({ opened: true, superseded: undefined });
    expect((await store.getGate(answered.id))?.state).toBe("answered");
    expect((await store.getGate(otherIssue.id))?.state).toBe("open");
  });

  it("getGate of an unknown id is undefined", async () => {
    expect(await freshStore().getGate("nope-nope")).toBeUndefined();
  });
});

describe("GateStore: recording answers", () => {
  it("recorded, then same for the same comment, taken for another, missing for an unknown gate", async () => {
    const store = await withIssue(freshStore());
    const g = newGate();
    await store.openGate(g);
    const gate = (await store.getGate(g.id))!;
    expect(await store.recordAnswer(gate, answer("alice", 500), "alice", 500, 5_000)).toEqual({ outcome: "recorded", reopened: 0 });
    expect(await store.recordAnswer(gate, answer("alice", 500), "alice", 500, 5_001)).toEqual({ outcome: "same", state: "answered", reopened: 0 });
    expect(await store.recordAnswer(gate, answer("bob", 501), "bob", 501, 5_002)).toEqual({ outcome: "taken", state: "answered", answeredBy: "alice" });
    expect(await store.recordAnswer({ ...gate, id: "never-opened" }, answer(), "x", 1, 1)).toEqual({ outcome: "missing" });

    const stored = await store.getGate(g.id);
    expect(stored).toMatchObject({ state: "answered", answeredBy: "alice", answeredAt: 5_000, answerCommentId: 500, answers: answer("alice", 500) });
    expect(await store.openGates()).toEqual([]);
    expect((await store.getIssue(ref))?.openGate).toBeUndefined();
  });

  it("a superseded or cancelled gate cannot be answered", async () => {
    const store = freshStore();
    const older = newGate();
    await store.openGate(older);
    await store.openGate(newGate());
    expect(await store.recordAnswer((await store.getGate(older.id))!, answer(), "alice", 1, 1)).toEqual({ outcome: "taken", state: "superseded", answeredBy: "" });
    const cancelled = newGate();
    await store.openGate(cancelled);
    await store.cancelGate(cancelled, "issue closed");
    expect(await store.recordAnswer((await store.getGate(cancelled.id))!, answer(), "alice", 2, 2)).toMatchObject({ outcome: "taken", state: "cancelled" });
  });

  it("20 concurrent answers from different comments: exactly one is recorded", async () => {
    const store = freshStore();
    const g = newGate();
    await store.openGate(g);
    const gate = (await store.getGate(g.id))!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.recordAnswer(gate, answer(`user${i}`, 1000 + i), `user${i}`, 1000 + i, 6_000 + i)),
    );
    const recorded = results.filter((r) => r.outcome === "recorded");
    expect(recorded).toHaveLength(1);
    const stored = (await store.getGate(g.id))!;
    const winner = stored.answeredBy!;
    for (const r of results) {
      if (r.outcome !== "recorded") expect(r).toEqual({ outcome: "taken", state: "answered", answeredBy: winner });
    }
    expect(stored.answerCommentId).toBe(1000 + Number(winner.replace("user", "")));
    expect(stored.answers[0]!.by).toBe(winner);
  });
});

describe("GateStore: answers to several questions", () => {
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
    await store.openGate(g);
    const gate = (await store.getGate(g.id))!;
    const first = q(0, "SQLite — ünïcödé 🙋 / \"quoted\"", "alice", 2_400_000_001);
    expect(await store.recordAnswer(gate, [first], "alice", 2_400_000_001, 10)).toEqual({ outcome: "partial", answers: [first] });
    expect(await store.getGate(g.id)).toMatchObject({ state: "open", answers: [first] });
    expect((await store.openGates()).map((x) => x.id)).toEqual([g.id]);

    const second = q(1, "yes", "bob", 2_400_000_002);
    expect(await store.recordAnswer(gate, [second], "bob", 2_400_000_002, 20)).toEqual({ outcome: "recorded", reopened: 0 });
    const stored = (await store.getGate(g.id))!;
    expect(stored).toMatchObject({ state: "answered", answeredBy: "bob", answeredAt: 20, answerCommentId: 2_400_000_002 });
    expect(stored.answers).toEqual([first, second]);
    expect(await store.openGates()).toEqual([]);
    expect((await store.getIssue(ref))?.openGate).toBeUndefined();
  });

  it("a later answer to the same question replaces the earlier one while the gate is open", async () => {
    const store = freshStore();
    const g = twoQuestions();
    await store.openGate(g);
    const gate = (await store.getGate(g.id))!;
    await store.recordAnswer(gate, [q(0, "Postgres", "alice", 1)], "alice", 1, 1);
    expect(await store.recordAnswer(gate, [q(0, "SQLite", "carol", 2)], "carol", 2, 2)).toEqual({ outcome: "partial", answers: [q(0, "SQLite", "carol", 2)] });
  });

  it("an empty answer list records nothing", async () => {
    const store = freshStore();
    const g = twoQuestions();
    await store.openGate(g);
    expect(await store.recordAnswer((await store.getGate(g.id))!, [], "alice", 1, 1)).toEqual({ outcome: "partial", answers: [] });
    expect((await store.getGate(g.id))?.state).toBe("open");
  });

  it("accepts a synthetic answering id (a timeout) and recognises its redelivery", async () => {
    const store = freshStore();
    const g = newGate();
    await store.openGate(g);
    const gate = (await store.getGate(g.id))!;
    const byDefault: RecordedAnswer = { question: 0, text: "SQLite", option: "SQLite", optionIndex: 1, by: "escalation", at: 1, source: "default" };
    expect(await store.recordAnswer(gate, [byDefault], "escalation", `timeout-${g.id}`, 1)).toEqual({ outcome: "recorded", reopened: 0 });
    expect(await store.recordAnswer(gate, [byDefault], "escalation", `timeout-${g.id}`, 2)).toEqual({ outcome: "same", state: "answered", reopened: 0 });
  });

  it("reviseAnswers: an edited reply replaces its answer before the resume, and for later rounds after it", async () => {
    const store = freshStore();
    const g = newGate();
    await store.openGate(g);
    const gate = (await store.getGate(g.id))!;
    await store.recordAnswer(gate, answer("alice", 500), "alice", 500, 1);
    const edited: RecordedAnswer[] = [{ ...answer("alice", 500)[0]!, text: "1", option: "Postgres", optionIndex: 0 }];
    expect(await store.reviseAnswers(gate, 501, edited, 2)).toEqual({ outcome: "none", state: "answered" }); // not the answering comment
    expect(await store.reviseAnswers(gate, 500, edited, 2)).toEqual({ outcome: "replaced", state: "answered" });
    expect((await store.getGate(g.id))?.answers).toEqual(edited);
    await store.claimResume(g.id, "job-1");
    const redacted: RecordedAnswer[] = [{ ...edited[0]!, text: "Postgres (password removed)" }];
    expect(await store.reviseAnswers(gate, 500, redacted, 3)).toEqual({ outcome: "replaced", state: "resuming" });
    expect(await store.getGate(g.id)).toMatchObject({ state: "resuming", answers: redacted, answerCommentId: 500 });
    expect(await store.reviseAnswers({ ...gate, id: "unknown-gate" }, 500, edited, 4)).toEqual({ outcome: "missing" });
  });
});

describe("GateStore: resuming", () => {
  async function answeredGate(store: GateStore) {
    const g = newGate();
    await store.openGate(g);
    await store.recordAnswer((await store.getGate(g.id))!, answer(), "alice", 500, 5_000);
    return g;
  }

  it("a gate is claimed once across jobs, but the same job may re-claim it (a retry)", async () => {
    const store = freshStore();
    const g = await answeredGate(store);
    expect(await store.claimResume(g.id, "job-A")).toBe(true);
    expect((await store.getGate(g.id))?.state).toBe("resuming");
    expect(await store.claimResume(g.id, "job-B")).toBe(false);
    expect(await store.claimResume(g.id, "job-A")).toBe(true);
    await store.markResumed(g.id, 9_000);
    expect(await store.getGate(g.id)).toMatchObject({ state: "resumed", resumedAt: 9_000 });
    expect(await store.claimResume(g.id, "job-A")).toBe(true);
    expect(await store.claimResume(g.id, "job-B")).toBe(false);
  });

  it("concurrent jobs: exactly one claims", async () => {
    const store = freshStore();
    const g = await answeredGate(store);
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => store.claimResume(g.id, `job-${i}`)));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it.each<[string]>([["open"], ["cancelled"], ["missing"]])("a %s gate cannot be claimed", async (state) => {
    const store = freshStore();
    const g = newGate();
    if (state !== "missing") await store.openGate(g);
    if (state === "cancelled") await store.cancelGate(g, "stop");
    expect(await store.claimResume(g.id, "job-1")).toBe(false);
  });
});

describe("GateStore: cancelling", () => {
  it("cancels an open gate once, clearing it from the inbox and the issue", async () => {
    const store = await withIssue(freshStore());
    const g = newGate();
    await store.openGate(g);
    expect(await store.cancelGate(g, "issue closed")).toBe(true);
    expect(await store.cancelGate(g, "again")).toBe(false);
    expect(await store.getGate(g.id)).toMatchObject({ state: "cancelled", closedReason: "issue closed" });
    expect(await store.openGates()).toEqual([]);
    expect((await store.getIssue(ref))?.openGate).toBeUndefined();
  });

  it("does not cancel an answered or unknown gate", async () => {
    const store = freshStore();
    const g = newGate();
    await store.openGate(g);
    await store.recordAnswer((await store.getGate(g.id))!, answer(), "alice", 1, 1);
    expect(await store.cancelGate(g, "late")).toBe(false);
    expect((await store.getGate(g.id))?.state).toBe("answered");
    expect(await store.cancelGate({ id: "unknown-gate", repo: REPO, issue: 7 }, "x")).toBe(false);
  });

  it("cancelling an old gate leaves the issue's newer open gate alone", async () => {
    const store = await withIssue(freshStore());
    const a = newGate({ issue: 7 });
    const b = newGate({ issue: 7 });
    await store.openGate(a);
    await store.openGate(b); // a is superseded
    expect(await store.cancelGate(a, "x")).toBe(false);
    expect((await store.getIssue(ref))?.openGate).toBe(b.id);
  });
});

describe("GateStore: rounds", () => {
  it("allocates a round per job: stable on retry, increasing across jobs", async () => {
    const store = freshStore();
    expect(await store.currentRound(ref)).toBe(0);
    expect(await store.allocateRound(ref, "job-1", LIMIT)).toBe(0);
    expect(await store.allocateRound(ref, "job-1", LIMIT)).toBe(0);
    expect(await store.allocateRound(ref, "job-2", LIMIT)).toBe(1);
    expect(await store.allocateRound(ref, "job-3", LIMIT)).toBe(2);
    expect(await store.allocateRound(ref, "job-2", LIMIT)).toBe(1);
    expect(await store.currentRound(ref)).toBe(2);
    await withIssue(store);
    expect((await store.getIssue(ref))?.nextRound).toBe(3);
  });

  it("rounds are per issue, and concurrent jobs get distinct rounds", async () => {
    const store = freshStore();
    const rounds = await Promise.all(Array.from({ length: 15 }, (_, i) => store.allocateRound(ref, `job-${i}`, LIMIT)));
    expect(rounds.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(await store.allocateRound({ repo: REPO, issue: 8 }, "job-0", LIMIT)).toBe(0);
    expect(await store.allocateRound({ repo: "octo/DEMO", issue: 7 }, "job-new", LIMIT)).toBe(15);
  });
});

describe("GateStore: round limit", () => {
  it("refuses a new round past the limit, keeps retries' rounds, and honours a raised limit", async () => {
    const store = freshStore();
    expect(await store.allocateRound(ref, "job-1", 2)).toBe(0);
    expect(await store.allocateRound(ref, "job-2", 2)).toBe(1);
    expect(await store.allocateRound(ref, "job-3", 2)).toBeUndefined();
    expect(await store.allocateRound(ref, "job-3", 2)).toBeUndefined();
    expect(await store.allocateRound(ref, "job-2", 2)).toBe(1); // a retry keeps its round
    expect(await store.currentRound(ref)).toBe(1); // the refusals allocated nothing
    await store.raiseRoundLimit(ref, 3);
    expect(await store.allocateRound(ref, "job-3", 2)).toBe(2);
    expect(await store.allocateRound(ref, "job-4", 2)).toBeUndefined();
    expect(await store.allocateRound({ repo: REPO, issue: 8 }, "job-1", 2)).toBe(0); // per issue
  });

  it("concurrent jobs never pass the limit", async () => {
    const store = freshStore();
    const rounds = await Promise.all(Array.from({ length: 12 }, (_, i) => store.allocateRound(ref, `job-${i}`, 5)));
    expect(rounds.filter((r) => r !== undefined).sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("GateStore: a spawn job's start in one round trip (beginRound, roundContext)", () => {
  const answered = async (store: GateStore, round = 0) => {
    const gate = newGate({ round });
    await store.openGate(gate);
    await store.recordAnswer((await store.getGate(gate.id))!, answer(), "alice", 500, 5_000);
    return gate;
  };
  const allocate = (lowest = 0, maxRounds = LIMIT) => ({ maxRounds, lowest });

  it("claims the gate once and allocates the round after the asking one; the same job gets both again, another job neither", async () => {
    const store = freshStore();
    await withIssue(store);
    const gate = await answered(store, 2);
    expect(await store.beginRound(ref, "job-1", { claimGate: gate.id, allocate: allocate(3) })).toMatchObject({ claim: "claimed", closed: false, round: 3, exhausted: false, currentRound: 3 });
    expect((await store.getGate(gate.id))?.state).toBe("resuming");
    expect(await store.beginRound(ref, "job-1", { claimGate: gate.id, allocate: allocate(3) })).toMatchObject({ claim: "claimed", round: 3 });
    expect(await store.beginRound(ref, "job-2", { claimGate: gate.id, allocate: allocate(3) })).toMatchObject({ claim: "resuming", round: undefined });
    expect(await store.beginRound(ref, "job-3", { claimGate: "no-such-gate", allocate: allocate() })).toMatchObject({ claim: "missing", round: undefined });
    expect(await store.currentRound(ref)).toBe(3);
  });

  it("allocates nothing on a closed issue or when not asked to, and says when the limit is reached", async () => {
    const store = freshStore();
    await store.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "t", body: "", url: "u", assignees: [], state: "closed" });
    expect(await store.beginRound(ref, "job-1", { allocate: allocate() })).toMatchObject({ claim: "claimed", closed: true, round: undefined, exhausted: false });
    await withIssue(store);
    await store.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "t", body: "", url: "u", assignees: [], state: "open" });
    const gate = await answered(store);
    expect(await store.beginRound(ref, "job-2", { claimGate: gate.id })).toMatchObject({ claim: "claimed", closed: false, round: undefined, exhausted: false });
    expect((await store.getGate(gate.id))?.state).toBe("resuming");
    expect(await store.beginRound(ref, "job-3", { allocate: allocate(0, 1) })).toMatchObject({ round: 0 });
    expect(await store.beginRound(ref, "job-4", { allocate: allocate(0, 1) })).toMatchObject({ round: undefined, exhausted: true, currentRound: 0 });
  });

  it("raises the round limit past the rounds used before allocating (a human answered retry)", async () => {
    const store = freshStore();
    expect(await store.beginRound(ref, "job-1", { allocate: allocate(0, 1) })).toMatchObject({ round: 0 });
    expect(await store.beginRound(ref, "job-2", { allocate: allocate(0, 1) })).toMatchObject({ exhausted: true });
    expect(await store.beginRound(ref, "job-3", { allocate: allocate(0, 1), raiseLimitBy: 2 })).toMatchObject({ round: 1 });
    expect(await store.beginRound(ref, "job-4", { allocate: allocate(0, 1) })).toMatchObject({ round: 2 });
    expect(await store.beginRound(ref, "job-5", { allocate: allocate(0, 1) })).toMatchObject({ exhausted: true, currentRound: 2 });
  });

  it("returns the namespace's epoch once there is one", async () => {
    const store = freshStore();
    expect((await store.beginRound(ref, "job-1", {})).epoch).toBeUndefined();
    const { at } = await store.epoch(12_345);
    expect((await store.beginRound(ref, "job-1", {})).epoch).toBe(at);
  });

  it("roundContext reads the issue, its gates in ask order, its notes and its round at once", async () => {
    const store = freshStore();
    expect(await store.roundContext(ref)).toEqual({ issue: undefined, gates: [], notes: [], currentRound: 0 });
    await withIssue(store);
    const gates = [newGate(), newGate()];
    for (const g of gates) await store.openGate(g);
    await store.addNote(ref, { by: "alice", at: 1, url: "u", text: "mind the cache", round: 0 });
    await store.allocateRound(ref, "job-1", LIMIT);
    await store.allocateRound(ref, "job-2", LIMIT);
    const context = await store.roundContext(ref);
    expect(context.issue).toEqual(await store.getIssue(ref));
    expect(context.gates).toEqual(await store.issueGates(ref));
    expect(context.gates.map((g) => g.id)).toEqual(gates.map((g) => g.id));
    expect(context.notes).toEqual([{ by: "alice", at: 1, url: "u", text: "mind the cache", round: 0 }]);
    expect(context.currentRound).toBe(1);
  });
});

describe("GateStore: listings", () => {
  it("issueGates returns every gate of the issue in ask order, whatever its state", async () => {
    const store = freshStore();
    const gates = [newGate(), newGate(), newGate()];
    for (const g of gates) await store.openGate(g);
    await store.openGate(newGate({ issue: 8 }));
    const listed = await store.issueGates(ref);
    expect(listed.map((g) => g.id)).toEqual(gates.map((g) => g.id));
    expect(listed.map((g) => g.state)).toEqual(["superseded", "superseded", "open"]);
    expect(await store.issueGates({ repo: REPO, issue: 999 })).toEqual([]);
  });

  it("openGates is the inbox: open gates only, oldest ask first, limited", async () => {
    const store = freshStore();
    const late = newGate({ issue: 1, askedAt: 3_000 });
    const early = newGate({ issue: 2, askedAt: 1_000 });
    const middle = newGate({ issue: 3, askedAt: 2_000 });
    const done = newGate({ issue: 4, askedAt: 500 });
    for (const g of [late, early, middle, done]) await store.openGate(g);
    await store.recordAnswer((await store.getGate(done.id))!, answer(), "alice", 1, 1);
    expect((await store.openGates()).map((g) => g.id)).toEqual([early.id, middle.id, late.id]);
    expect((await store.openGates(2)).map((g) => g.id)).toEqual([early.id, middle.id]);
  });
});

describe("GateStore: lastGate, notes and one-time marks", () => {
  it("lastGate is the issue's most recent gate, whatever its state", async () => {
    const store = freshStore();
    expect(await store.lastGate(ref)).toBeUndefined();
    const first = newGate();
    const second = newGate();
    await store.openGate(first);
    await store.openGate(second);
    expect((await store.lastGate(ref))?.id).toBe(second.id);
    await store.cancelGate(second, "stop");
    expect(await store.lastGate(ref)).toMatchObject({ id: second.id, state: "cancelled" });
  });

  it("keeps notes per issue in order", async () => {
    const store = freshStore();
    expect(await store.notes(ref)).toEqual([]);
    const a = { by: "alice", at: 1, url: "u1", text: "Prefer small PRs.\n\nThanks 🙏", round: 0 };
    const b = { by: "bob", at: 2, url: "u2", text: "Use SQLite", round: 1 };
    await store.addNote(ref, a);
    await store.addNote({ repo: "octo/demo", issue: 7 }, b);
    expect(await store.notes(ref)).toEqual([a, b]);
    expect(await store.notes({ repo: REPO, issue: 8 })).toEqual([]);
  });

  it("firstTime is true once per key until it expires", async () => {
    const store = freshStore();
    expect(await store.firstTime("help:octo/demo#7")).toBe(true);
    expect(await store.firstTime("help:octo/demo#7")).toBe(false);
    expect(await store.firstTime("help:octo/demo#8")).toBe(true);
    expect(await store.firstTime("short", 1)).toBe(true);
    const ttl = await redis().ttl(store.keys.once("help:octo/demo#7"));
    expect(ttl).toBeGreaterThan(29 * 86400);
    await new Promise((r) => setTimeout(r, 1_150));
    expect(await store.firstTime("short", 1)).toBe(true);
  });
});

describe("GateStore: status log", () => {
  it("appends numbered lines and remembers how many are rendered", async () => {
    const store = freshStore();
    expect(await store.statusLines(ref)).toEqual([]);
    expect(await store.statusRendered(ref)).toBe(0);
    expect(await store.appendStatusLine(ref, "round 0: agent started")).toBe(1);
    expect(await store.appendStatusLine(ref, "round 0: agent finished")).toBe(2);
    expect(await store.statusLines({ repo: "octo/demo", issue: 7 })).toEqual(["round 0: agent started", "round 0: agent finished"]);
    await store.setStatusRendered(ref, 2);
    expect(await store.statusRendered(ref)).toBe(2);
    expect(await store.statusLines({ repo: REPO, issue: 8 })).toEqual([]);
  });
});

describe("GateStore: permission cache", () => {
  it("caches a permission per repo and login, case-insensitively, for the TTL", async () => {
    const store = freshStore();
    expect(await store.cachedPermission(REPO, "Alice")).toBeNull();
    await store.cachePermission(REPO, "Alice", "write", 1);
    expect(await store.cachedPermission("octo/demo", "alice")).toBe("write");
    expect(await store.cachedPermission(REPO, "bob")).toBeNull();
    const ttl = await redis().pttl(store.keys.permission(REPO, "alice"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000);
    await new Promise((r) => setTimeout(r, 1_150));
    expect(await store.cachedPermission(REPO, "Alice")).toBeNull();
  });

  it("a new value replaces the cached one with a fresh TTL", async () => {
    const store = freshStore();
    await store.cachePermission(REPO, "carol", "read", 60);
    await store.cachePermission(REPO, "carol", "admin", 120);
    expect(await store.cachedPermission(REPO, "carol")).toBe("admin");
    expect(await redis().ttl(store.keys.permission(REPO, "carol"))).toBeGreaterThan(60);
  });
});

describe("GateStore: namespaces", () => {
  it("two prefixes on one connection do not see each other's gates", async () => {
    const a = freshStore();
    const b = freshStore();
    const g = newGate();
    await a.openGate(g);
    expect(await b.getGate(g.id)).toBeUndefined();
    expect(await b.openGates()).toEqual([]);
    expect((await b.openGate(g)).opened).toBe(true);
  });
});

describe("GateStore: superseded questions, the reminder ladder, round timings", () => {
  it("supersedes only an open gate, takes it out of the open set, and keeps the first late answer once", async () => {
    const store = await withIssue(freshStore());
    const gate = newGate();
    await store.openGate(gate);
    expect(await store.supersedeGate(gate, "the question was edited at T")).toBe(true);
    expect(await store.supersedeGate(gate, "again")).toBe(false);
    expect(await store.getGate(gate.id)).toMatchObject({ state: "superseded", closedReason: "the question was edited at T" });
    expect(await store.openGates()).toEqual([]);
    expect((await store.getIssue(ref))?.openGate).toBeUndefined();

    expect(await store.recordSupersededAnswer(gate.id, answer("alice", 501), "alice", 5_000, 501)).toBe("recorded");
    expect(await store.recordSupersededAnswer(gate.id, answer("alice", 501), "alice", 5_000, 501)).toBe("same");
    expect(await store.recordSupersededAnswer(gate.id, answer("bob", 502), "bob", 6_000, 502)).toBe("taken");
    expect(await store.getGate(gate.id)).toMatchObject({ state: "superseded", answeredBy: "alice", answerCommentId: 501, answers: [{ option: "SQLite", by: "alice" }] });

    const open = newGate();
    await store.openGate(open);
    expect(await store.recordSupersededAnswer(open.id, answer(), "alice", 5_000, 503)).toBe("open");
  });

  it("marks an open gate overdue once (the first time counts) and never a settled one", async () => {
    const store = await withIssue(freshStore());
    const gate = newGate();
    await store.openGate(gate);
    expect(await store.markOverdue(gate.id, 10_000)).toBe(true);
    expect(await store.markOverdue(gate.id, 20_000)).toBe(true);
    expect((await store.getGate(gate.id))?.overdueAt).toBe(10_000);
    await store.cancelGate(gate, "closed");
    expect(await store.markOverdue(gate.id, 30_000)).toBe(false);
  });

  it("remembers posted ladder steps, also seeded before the gate exists (a rebuild)", async () => {
    const store = freshStore();
    await store.markLadderStepsPosted("gate-ladder-1", [0, 2]);
    expect(await store.ladderStepPosted("gate-ladder-1", 0)).toBe(true);
    expect(await store.ladderStepPosted("gate-ladder-1", 1)).toBe(false);
    expect(await store.ladderStepPosted("gate-ladder-1", 2)).toBe(true);
    const gate = newGate({ id: "gate-ladder-1" });
    expect((await (await withIssue(store)).openGate(gate)).opened).toBe(true);
  });

  it("keeps one timing per round (the last attempt), in round order; a restore fills only what is missing", async () => {
    const store = freshStore();
    await store.recordRoundTiming(ref, { round: 1, startedAt: 2, runMs: 500, outcome: "failure", gate: "g", waitMs: 60_000, answeredBy: "alice" });
    await store.recordRoundTiming(ref, { round: 1, startedAt: 3, runMs: 700, outcome: "success", gate: "g", waitMs: 60_000, answeredBy: "alice" });
    await store.restoreRoundTimings(ref, [
      { round: 0, startedAt: 1, runMs: 100, outcome: "success" },
      { round: 1, startedAt: 9, runMs: 9, outcome: "stopped" },
    ]);
    expect((await store.roundTimings(ref)).map((t) => [t.round, t.runMs, t.outcome])).toEqual([
      [0, 100, "success"],
      [1, 700, "success"],
    ]);
  });
});

describe("GateStore: votes on an approval gate", () => {
  const approvalGate = () => {
    const id = `approval-${++seq}-${randomUUID().slice(0, 6)}`;
    return newGate({ id, ask: validateAsk({ v: 1, id, kind: "approval", approvers: 2, round: 0, questions: [{ text: "Deploy?" }] }) });
  };
  const vote = (login: string, choice: "approve" | "deny", commentId: number) => ({ login, vote: choice, at: commentId, commentId });

  it("records each person once: a redelivery is 'same', the same vote again 'repeated', the other vote 'changed'", async () => {
    const store = await withIssue(freshStore());
    const gate = approvalGate();
    await store.openGate(gate);
    expect(await store.recordVote(gate.id, vote("alice", "approve", 10))).toEqual({ outcome: "counted", votes: [vote("alice", "approve", 10)] });
    expect(await store.recordVote(gate.id, vote("alice", "approve", 10))).toMatchObject({ outcome: "same", votes: [vote("alice", "approve", 10)] });
    expect(await store.recordVote(gate.id, vote("Alice", "approve", 11))).toMatchObject({ outcome: "repeated", votes: [vote("alice", "approve", 10)] });
    expect(await store.recordVote(gate.id, vote("bob", "approve", 12))).toMatchObject({ outcome: "counted", votes: [vote("alice", "approve", 10), vote("bob", "approve", 12)] });
    expect(await store.recordVote(gate.id, vote("alice", "deny", 13))).toMatchObject({ outcome: "changed", votes: [vote("bob", "approve", 12), vote("alice", "deny", 13)] });
    expect(await store.votes(gate.id)).toEqual([vote("bob", "approve", 12), vote("alice", "deny", 13)]);
  });

  it("many people voting at once are all recorded, each once", async () => {
    const store = await withIssue(freshStore());
    const gate = approvalGate();
    await store.openGate(gate);
    const people = Array.from({ length: 20 }, (_, i) => `user${i}`);
    await Promise.all(people.flatMap((login, i) => [store.recordVote(gate.id, vote(login, "approve", 100 + i)), store.recordVote(gate.id, vote(login, "approve", 200 + i))]));
    const votes = await store.votes(gate.id);
    expect(votes.map((v) => v.login).sort()).toEqual([...people].sort());
  });

  it("takes no vote once the gate is settled, or when it is gone", async () => {
    const store = await withIssue(freshStore());
    const gate = approvalGate();
    await store.openGate(gate);
    await store.cancelGate(gate, "test");
    expect(await store.recordVote(gate.id, vote("alice", "approve", 10))).toEqual({ outcome: "closed", state: "cancelled" });
    expect(await store.votes(gate.id)).toEqual([]);
    expect(await store.recordVote("no-such-gate", vote("alice", "approve", 10))).toEqual({ outcome: "missing" });
  });
});
