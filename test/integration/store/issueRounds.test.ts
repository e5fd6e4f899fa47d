import { describe, expect, it } from "vitest";
import { IssueRounds } from "../../../src/store/issueRounds.js";
import type { Stores } from "../../../src/store/stores.js";
import { storeRedis } from "../../support/storeRedis.js";
import { answer, LIMIT, newGate, ref, REPO, withIssue } from "./support.js";

const { redis, freshStore } = storeRedis();

describe("IssueRounds: rounds", () => {
  it("allocates a round per job: stable on retry, increasing across jobs", async () => {
    const store = freshStore();
    expect(await store.rounds.currentRound(ref)).toBe(0);
    expect(await store.rounds.allocateRound(ref, "job-1", LIMIT)).toBe(0);
    expect(await store.rounds.allocateRound(ref, "job-1", LIMIT)).toBe(0);
    expect(await store.rounds.allocateRound(ref, "job-2", LIMIT)).toBe(1);
    expect(await store.rounds.allocateRound(ref, "job-3", LIMIT)).toBe(2);
    expect(await store.rounds.allocateRound(ref, "job-2", LIMIT)).toBe(1);
    expect(await store.rounds.currentRound(ref)).toBe(2);
    await withIssue(store);
    expect((await store.issues.getIssue(ref))?.nextRound).toBe(3);
  });

  it("rounds are per issue, and concurrent jobs get distinct rounds", async () => {
    const store = freshStore();
    const rounds = await Promise.all(Array.from({ length: 15 }, (_, i) => store.rounds.allocateRound(ref, `job-${i}`, LIMIT)));
    expect(rounds.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(await store.rounds.allocateRound({ repo: REPO, issue: 8 }, "job-0", LIMIT)).toBe(0);
    expect(await store.rounds.allocateRound({ repo: "octo/DEMO", issue: 7 }, "job-new", LIMIT)).toBe(15);
  });
});

describe("IssueRounds: round limit", () => {
  it("refuses a new round past the limit, keeps retries' rounds, and honours a raised limit", async () => {
    const store = freshStore();
    expect(await store.rounds.allocateRound(ref, "job-1", 2)).toBe(0);
    expect(await store.rounds.allocateRound(ref, "job-2", 2)).toBe(1);
    expect(await store.rounds.allocateRound(ref, "job-3", 2)).toBeUndefined();
    expect(await store.rounds.allocateRound(ref, "job-3", 2)).toBeUndefined();
    expect(await store.rounds.allocateRound(ref, "job-2", 2)).toBe(1); // a retry keeps its round
    expect(await store.rounds.currentRound(ref)).toBe(1); // the refusals allocated nothing
    await store.rounds.raiseRoundLimit(ref, 3);
    expect(await store.rounds.allocateRound(ref, "job-3", 2)).toBe(2);
    expect(await store.rounds.allocateRound(ref, "job-4", 2)).toBeUndefined();
    expect(await store.rounds.allocateRound({ repo: REPO, issue: 8 }, "job-1", 2)).toBe(0); // per issue
  });

  it("concurrent jobs never pass the limit", async () => {
    const store = freshStore();
    const rounds = await Promise.all(Array.from({ length: 12 }, (_, i) => store.rounds.allocateRound(ref, `job-${i}`, 5)));
    expect(rounds.filter((r) => r !== undefined).sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("IssueRounds: a spawn job's start in one round trip (beginRound, roundRecords)", () => {
  const answered = async (store: Stores, round = 0) => {
    const gate = newGate({ round });
    await store.gates.openGate(gate);
    await store.gates.recordAnswer((await store.gates.getGate(gate.id))!, answer(), "alice", 500, 5_000);
    return gate;
  };
  const allocate = (lowest = 0, maxRounds = LIMIT) => ({ maxRounds, lowest });

  it("claims the gate once and allocates the round after the asking one; the same job gets both again, another job neither", async () => {
    const store = freshStore();
    await withIssue(store);
    const gate = await answered(store, 2);
    expect(await store.rounds.beginRound(ref, "job-1", { claimGate: gate.id, allocate: allocate(3) })).toMatchObject({
      claim: "claimed",
      closed: false,
      round: 3,
      exhausted: false,
      currentRound: 3,
    });
    expect((await store.gates.getGate(gate.id))?.state).toBe("resuming");
    expect(await store.rounds.beginRound(ref, "job-1", { claimGate: gate.id, allocate: allocate(3) })).toMatchObject({ claim: "claimed", round: 3 });
    expect(await store.rounds.beginRound(ref, "job-2", { claimGate: gate.id, allocate: allocate(3) })).toMatchObject({ claim: "resuming", round: undefined });
    expect(await store.rounds.beginRound(ref, "job-3", { claimGate: "no-such-gate", allocate: allocate() })).toMatchObject({
      claim: "missing",
      round: undefined,
    });
    expect(await store.rounds.currentRound(ref)).toBe(3);
  });

  it("allocates nothing on a closed issue or when not asked to, and says when the limit is reached", async () => {
    const store = freshStore();
    await store.issues.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "t", body: "", url: "u", assignees: [], state: "closed" });
    expect(await store.rounds.beginRound(ref, "job-1", { allocate: allocate() })).toMatchObject({
      claim: "claimed",
      closed: true,
      round: undefined,
      exhausted: false,
    });
    await withIssue(store);
    await store.issues.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "t", body: "", url: "u", assignees: [], state: "open" });
    const gate = await answered(store);
    expect(await store.rounds.beginRound(ref, "job-2", { claimGate: gate.id })).toMatchObject({
      claim: "claimed",
      closed: false,
      round: undefined,
      exhausted: false,
    });
    expect((await store.gates.getGate(gate.id))?.state).toBe("resuming");
    expect(await store.rounds.beginRound(ref, "job-3", { allocate: allocate(0, 1) })).toMatchObject({ round: 0 });
    expect(await store.rounds.beginRound(ref, "job-4", { allocate: allocate(0, 1) })).toMatchObject({ round: undefined, exhausted: true, currentRound: 0 });
  });

  it("raises the round limit past the rounds used before allocating (a human answered retry)", async () => {
    const store = freshStore();
    expect(await store.rounds.beginRound(ref, "job-1", { allocate: allocate(0, 1) })).toMatchObject({ round: 0 });
    expect(await store.rounds.beginRound(ref, "job-2", { allocate: allocate(0, 1) })).toMatchObject({ exhausted: true });
    expect(await store.rounds.beginRound(ref, "job-3", { allocate: allocate(0, 1), raiseLimitBy: 2 })).toMatchObject({ round: 1 });
    expect(await store.rounds.beginRound(ref, "job-4", { allocate: allocate(0, 1) })).toMatchObject({ round: 2 });
    expect(await store.rounds.beginRound(ref, "job-5", { allocate: allocate(0, 1) })).toMatchObject({ exhausted: true, currentRound: 2 });
  });

  it("returns the namespace's epoch once there is one", async () => {
    const store = freshStore();
    expect((await store.rounds.beginRound(ref, "job-1", {})).epoch).toBeUndefined();
    const { at } = await store.namespaceMarks.epoch(12_345);
    expect((await store.rounds.beginRound(ref, "job-1", {})).epoch).toBe(at);
  });

  it("roundRecords reads the issue, its gates in ask order, its notes and its round at once", async () => {
    const store = freshStore();
    expect(await store.rounds.roundRecords(ref)).toEqual({ issue: undefined, gates: [], notes: [], currentRound: 0 });
    await withIssue(store);
    const gates = [newGate(), newGate()];
    for (const g of gates) await store.gates.openGate(g);
    await store.notes.addNote(ref, { by: "alice", at: 1, url: "u", text: "mind the cache", round: 0 });
    await store.rounds.allocateRound(ref, "job-1", LIMIT);
    await store.rounds.allocateRound(ref, "job-2", LIMIT);
    const context = await store.rounds.roundRecords(ref);
    expect(context.issue).toEqual(await store.issues.getIssue(ref));
    expect(context.gates).toEqual(await store.gates.issueGates(ref));
    expect(context.gates.map((g) => g.id)).toEqual(gates.map((g) => g.id));
    expect(context.notes).toEqual([{ by: "alice", at: 1, url: "u", text: "mind the cache", round: 0 }]);
    expect(context.currentRound).toBe(1);
  });
});

describe("IssueRounds: round timings", () => {
  it("keeps one timing per round (the last attempt), in round order; a restore fills only what is missing", async () => {
    const store = freshStore();
    await store.rounds.recordRoundTiming(ref, { round: 1, startedAt: 2, runMs: 500, outcome: "failure", gate: "g", waitMs: 60_000, answeredBy: "alice" });
    await store.rounds.recordRoundTiming(ref, { round: 1, startedAt: 3, runMs: 700, outcome: "success", gate: "g", waitMs: 60_000, answeredBy: "alice" });
    await store.rounds.restoreRoundTimings(ref, [
      { round: 0, startedAt: 1, runMs: 100, outcome: "success" },
      { round: 1, startedAt: 9, runMs: 9, outcome: "stopped" },
    ]);
    expect((await store.rounds.roundTimings(ref)).map((t) => [t.round, t.runMs, t.outcome])).toEqual([
      [0, 100, "success"],
      [1, 700, "success"],
    ]);
  });
});

describe("IssueRounds: rounds run to their end", () => {
  it("remembers which spawn jobs ran their round to the end, per issue", async () => {
    const store = freshStore();
    const ref = { repo: "Acme/Widgets", issue: 12 };
    // Beginning nothing (no gate to claim, no round asked for), the job's round is "done" or free.
    const roundDone = async (r: typeof ref, jobId: string) => (await store.rounds.beginRound(r, jobId, {})).claim === "done";
    expect(await roundDone(ref, "dispatch-1")).toBe(false);
    await store.rounds.markRoundDone(ref, "dispatch-1");
    expect(await roundDone({ repo: "acme/widgets", issue: 12 }, "dispatch-1")).toBe(true);
    expect(await roundDone(ref, "dispatch-2")).toBe(false);
    expect(await roundDone({ ...ref, issue: 13 }, "dispatch-1")).toBe(false);
  });
});

describe("IssueRounds: rounds after Redis lost the counter", () => {
  it("a resume's round is never below the round after the one that asked", async () => {
    const store = freshStore();
    const ref = { repo: "acme/widgets", issue: 12 };
    expect(await store.rounds.allocateRound(ref, "resume-g1", 1000, 3)).toBe(3); // the counter was lost: 0 would repeat round 0
    expect(await store.rounds.allocateRound(ref, "dispatch-2", 1000)).toBe(4);
    expect(await store.rounds.allocateRound(ref, "resume-g1", 1000, 3)).toBe(3); // a retry keeps its round
    expect(await store.rounds.allocateRound(ref, "resume-g2", 1000, 1)).toBe(5); // a floor below the counter changes nothing
    expect(await store.rounds.allocateRound(ref, "resume-g3", 6, 9)).toBeUndefined(); // the limit still holds
  });
});

describe("IssueRounds: a spawn job's round, kept in the issue's hash", () => {
  it("is allocated once per job, in the issue's hash, with no spawns hash of its own", async () => {
    const store = freshStore();
    expect(await store.rounds.allocateRound(ref, "dispatch-1", 10)).toBe(0);
    expect(await store.rounds.allocateRound(ref, "dispatch-1", 10)).toBe(0);
    expect(await redis().hget(store.issues.key(ref), IssueRounds.spawnField("dispatch-1"))).toBe("0");
    expect(await redis().exists(store.rounds.spawnsKey(ref))).toBe(0);
    const begun = await store.rounds.beginRound(ref, "resume-2", { allocate: { maxRounds: 10, lowest: 0 } });
    expect(begun).toMatchObject({ claim: "claimed", round: 1, currentRound: 1 });
    expect(await store.rounds.beginRound(ref, "resume-2", { allocate: { maxRounds: 10, lowest: 0 } })).toMatchObject({ round: 1, currentRound: 1 });
  });

  it("keeps the round of a job allocated in the spawns hash before the upgrade, for allocateRound and beginRound alike", async () => {
    const store = freshStore();
    // As the app wrote them before: the round counter in the issue's hash, each job's round in its spawns hash.
    await redis().hset(store.issues.key(ref), "nextRound", 3);
    await redis().hset(store.rounds.spawnsKey(ref), { "dispatch-old": "0", "resume-old": "2" });
    expect(await store.rounds.allocateRound(ref, "dispatch-old", 10)).toBe(0);
    expect(await store.rounds.beginRound(ref, "resume-old", { allocate: { maxRounds: 10, lowest: 0 } })).toMatchObject({ round: 2, currentRound: 2 });
    expect(await store.rounds.allocateRound(ref, "dispatch-new", 10)).toBe(3);
    expect(await store.rounds.currentRound(ref)).toBe(3);
    // Its round run to its end, the old field goes too, and the spawns hash with its last one.
    await store.rounds.markRoundDone(ref, "dispatch-old");
    expect(await redis().hkeys(store.rounds.spawnsKey(ref))).toEqual(["resume-old"]);
    await store.rounds.markRoundDone(ref, "resume-old");
    expect(await redis().exists(store.rounds.spawnsKey(ref))).toBe(0);
  });

  it("leaves the issue's hash when the job's round runs to its end; a re-run of the job then begins nothing", async () => {
    const store = freshStore();
    const issue = store.issues.key(ref);
    expect((await store.rounds.beginRound(ref, "dispatch-1", { allocate: { maxRounds: 10, lowest: 0 } })).round).toBe(0);
    expect((await store.rounds.beginRound(ref, "dispatch-2", { allocate: { maxRounds: 10, lowest: 0 } })).round).toBe(1);
    await store.rounds.markRoundDone(ref, "dispatch-1");
    expect(await redis().hexists(issue, IssueRounds.spawnField("dispatch-1"))).toBe(0);
    expect(await redis().hget(issue, IssueRounds.spawnField("dispatch-2"))).toBe("1"); // still to run: a retry keeps its round
    // A re-run of a job whose round was marked done: no new round, no claim.
    const gate = newGate();
    await store.gates.openGate(gate);
    await store.gates.recordAnswer((await store.gates.getGate(gate.id))!, answer(), "alice", 500, 5_000);
    await store.rounds.markRoundDone(ref, "resume-1");
    expect(await store.rounds.beginRound(ref, "resume-1", { claimGate: gate.id, allocate: { maxRounds: 10, lowest: 0 } })).toMatchObject({
      claim: "done",
      round: undefined,
      exhausted: false,
    });
    expect(await store.rounds.beginRound(ref, "dispatch-1", { allocate: { maxRounds: 10, lowest: 0 } })).toMatchObject({ claim: "done", round: undefined });
    expect((await store.gates.getGate(gate.id))?.state).toBe("answered");
    expect(await store.rounds.currentRound(ref)).toBe(1);
  });

  it("keeps the issue's hash a listpack however many rounds the issue runs", async () => {
    const store = await withIssue(freshStore());
    for (let i = 0; i < 300; i++) {
      const jobId = `dispatch-acme/widgets#7-c${3_000_000_000 + i}`;
      expect((await store.rounds.beginRound(ref, jobId, { allocate: { maxRounds: LIMIT, lowest: 0 } })).round).toBe(i);
      await store.rounds.markRoundDone(ref, jobId);
    }
    expect(await redis().hlen(store.issues.key(ref))).toBeLessThan(20);
    expect(await redis().object("ENCODING", store.issues.key(ref))).toBe("listpack");
    expect(await store.rounds.currentRound(ref)).toBe(299);
  });
});
