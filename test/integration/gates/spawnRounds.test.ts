import { describe, expect, it } from "vitest";
import { storeRedis } from "../../support/storeRedis.js";

const { redis, freshStore } = storeRedis();
const ref = { repo: "Octo/Demo", issue: 7 };

describe("GateStore: a spawn job's round, kept in the issue's hash", () => {
  it("is allocated once per job, in the issue's hash, with no spawns hash of its own", async () => {
    const store = freshStore();
    expect(await store.allocateRound(ref, "dispatch-1", 10)).toBe(0);
    expect(await store.allocateRound(ref, "dispatch-1", 10)).toBe(0);
    expect(await redis().hget(store.keys.issue(ref), store.keys.issueSpawnField("dispatch-1"))).toBe("0");
    expect(await redis().exists(store.keys.issueSpawns(ref))).toBe(0);
    const begun = await store.beginRound(ref, "resume-2", { allocate: { maxRounds: 10, lowest: 0 } });
    expect(begun).toMatchObject({ claim: "claimed", round: 1, currentRound: 1 });
    expect(await store.beginRound(ref, "resume-2", { allocate: { maxRounds: 10, lowest: 0 } })).toMatchObject({ round: 1, currentRound: 1 });
  });

  it("keeps the round of a job allocated in the spawns hash before the upgrade, for allocateRound and beginRound alike", async () => {
    const store = freshStore();
    // As the app wrote them before: the round counter in the issue's hash, each job's round in its spawns hash.
    await redis().hset(store.keys.issue(ref), "nextRound", 3);
    await redis().hset(store.keys.issueSpawns(ref), { "dispatch-old": "0", "resume-old": "2" });
    expect(await store.allocateRound(ref, "dispatch-old", 10)).toBe(0);
    expect(await store.beginRound(ref, "resume-old", { allocate: { maxRounds: 10, lowest: 0 } })).toMatchObject({ round: 2, currentRound: 2 });
    expect(await store.allocateRound(ref, "dispatch-new", 10)).toBe(3);
    expect(await store.currentRound(ref)).toBe(3);
  });
});

describe("GateStore: fields that say nothing are not stored", () => {
  it("an issue without assignees has no assignees field, and losing its last assignee removes it", async () => {
    const store = freshStore();
    const issue = { ...ref, installationId: 1, title: "Add a cache", body: "", url: "https://x/7" };
    await store.upsertIssue({ ...issue, assignees: [] });
    expect(await redis().hexists(store.keys.issue(ref), "assignees")).toBe(0);
    expect((await store.getIssue(ref))?.assignees).toEqual([]);
    await store.upsertIssue({ ...issue, assignees: ["alice", "bob"] });
    expect((await store.getIssue(ref))?.assignees).toEqual(["alice", "bob"]);
    await store.upsertIssue({ ...issue, assignees: [] });
    expect((await store.getIssue(ref))?.assignees).toEqual([]);
    expect(await redis().hexists(store.keys.issue(ref), "assignees")).toBe(0);
  });
});
