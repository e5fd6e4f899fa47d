import { describe, expect, it } from "vitest";
import { startMonitor } from "../../support/redisMonitor.js";
import { storeRedis } from "../../support/storeRedis.js";
import { LIMIT, newGate, ref, REPO, withIssue } from "./support.js";

const { redis, freshStore } = storeRedis();

describe("IssueRecords: issues", () => {
  it("upserts an issue and reads it back, case-insensitively by repo", async () => {
    const store = freshStore();
    expect(await store.issues.getIssue(ref)).toBeUndefined();
    await store.issues.upsertIssue({
      repo: REPO,
      issue: 7,
      installationId: 99,
      title: "Add a cache",
      body: "",
      url: "https://x/7",
      assignees: ["alice", "bob"],
    });
    expect(await store.issues.getIssue({ repo: "octo/demo", issue: 7 })).toEqual({
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
    expect(await store.issues.getIssue({ repo: REPO, issue: 8 })).toBeUndefined();
  });

  it("an upsert keeps the open gate, rounds and status comment", async () => {
    const store = freshStore();
    await store.issues.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "v1", body: "b1", url: "u", assignees: ["alice"] });
    const gate = newGate();
    await store.gates.openGate(gate);
    await store.rounds.allocateRound(ref, "job-1", LIMIT);
    await store.statusLog.setStatusCommentId(ref, 1234);
    await store.issues.upsertIssue({ repo: REPO, issue: 7, installationId: 100, title: "v2", body: "b2", url: "u", assignees: [] });
    expect(await store.issues.getIssue(ref)).toMatchObject({
      title: "v2",
      body: "b2",
      installationId: 100,
      assignees: [],
      openGate: gate.id,
      nextRound: 1,
      statusCommentId: 1234,
    });
  });

  it("keeps the author's body through another's edits and later upserts, until the author edits it", async () => {
    const store = await withIssue(freshStore());
    await store.issues.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "t", body: "A1", url: "u", assignees: [] });
    await store.issues.issueBodyEdited(ref, { body: "X1", byAuthor: false, editor: "escalation[bot]", previous: "A1" });
    // A second foreign edit keeps the author's version, not the first foreign one.
    await store.issues.issueBodyEdited(ref, { body: "X2", byAuthor: false, editor: "admin", previous: "X1" });
    await store.issues.upsertIssue({ repo: REPO, issue: 7, installationId: 99, title: "t", body: "X2", url: "u", assignees: [] });
    expect(await store.issues.getIssue(ref)).toMatchObject({ body: "X2", bodyEdit: { editor: "admin", authorBody: "A1" } });
    expect((await store.rounds.roundRecords(ref)).issue?.bodyEdit).toEqual({ editor: "admin", authorBody: "A1" });
    await store.issues.issueBodyEdited(ref, { body: "A2", byAuthor: true, editor: "alice", previous: "X2" });
    const own = await store.issues.getIssue(ref);
    expect(own?.body).toBe("A2");
    expect(own).not.toHaveProperty("bodyEdit");
  });

  it("a rebuild's upsert sets, or clears, who changed the body; one without it leaves it", async () => {
    const store = await withIssue(freshStore());
    const rebuilt = { repo: REPO, issue: 7, installationId: 99, title: "t", body: "X", url: "u", assignees: [] };
    await store.issues.upsertIssue({ ...rebuilt, bodyEdit: { editor: "escalation" } });
    expect((await store.issues.getIssue(ref))?.bodyEdit).toEqual({ editor: "escalation" });
    await store.issues.upsertIssue({ ...rebuilt, bodyEdit: { editor: "escalation", authorBody: "" } });
    expect((await store.issues.getIssue(ref))?.bodyEdit).toEqual({ editor: "escalation", authorBody: "" });
    await store.issues.upsertIssue(rebuilt);
    expect((await store.issues.getIssue(ref))?.bodyEdit).toEqual({ editor: "escalation", authorBody: "" });
    await store.issues.upsertIssue({ ...rebuilt, bodyEdit: { editor: "admin" } });
    expect((await store.issues.getIssue(ref))?.bodyEdit).toEqual({ editor: "admin" });
    await store.issues.upsertIssue({ ...rebuilt, bodyEdit: null });
    expect(await store.issues.getIssue(ref)).not.toHaveProperty("bodyEdit");
  });
});

describe("IssueRecords: what an event's upsert costs", () => {
  it("is one command to Redis, fields set and cleared alike", async () => {
    const store = freshStore();
    const key = store.issues.key(ref);
    const issue = { ...ref, installationId: 1, title: "Add a cache", body: "b", url: "u", assignees: ["alice"] };
    await store.issues.upsertIssue(issue); // the first call also loads the script
    const monitor = await startMonitor(redis());
    const sent: string[][] = [];
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      if (source !== "lua" && args.some((a) => a.includes(key))) sent.push(args);
    });
    try {
      await store.issues.upsertIssue({ ...issue, assignees: [], bodyEdit: null, titleEdit: { editor: "admin", personsTitle: "Add a cache" } });
      // Redis shows commands in order: once this one is seen, every command of the upsert was.
      const marker = `${key}:end`;
      await redis().echo(marker);
      await expect.poll(() => sent.some((args) => args.includes(marker))).toBe(true);
      expect(sent.filter((args) => !args.includes(marker)).map((args) => args[0]!.toLowerCase())).toEqual(["evalsha"]);
    } finally {
      monitor.disconnect();
    }
    expect(await store.issues.getIssue(ref)).toMatchObject({
      assignees: [],
      title: "Add a cache",
      titleEdit: { editor: "admin", personsTitle: "Add a cache" },
    });
    expect(await redis().hexists(key, "assignees")).toBe(0);
  });
});

describe("IssueRecords: fields that say nothing are not stored", () => {
  it("an issue without assignees has no assignees field, and losing its last assignee removes it", async () => {
    const store = freshStore();
    const issue = { ...ref, installationId: 1, title: "Add a cache", body: "", url: "https://x/7" };
    await store.issues.upsertIssue({ ...issue, assignees: [] });
    expect(await redis().hexists(store.issues.key(ref), "assignees")).toBe(0);
    expect((await store.issues.getIssue(ref))?.assignees).toEqual([]);
    await store.issues.upsertIssue({ ...issue, assignees: ["alice", "bob"] });
    expect((await store.issues.getIssue(ref))?.assignees).toEqual(["alice", "bob"]);
    await store.issues.upsertIssue({ ...issue, assignees: [] });
    expect((await store.issues.getIssue(ref))?.assignees).toEqual([]);
    expect(await redis().hexists(store.issues.key(ref), "assignees")).toBe(0);
  });
});
