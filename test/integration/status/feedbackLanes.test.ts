import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FeedbackOp } from "../../../src/payloads.js";
import { FeedbackLanes, type LaneEntry } from "../../../src/status/feedbackLanes.js";

const ISSUE = { installationId: 5, repo: "acme/widgets", issue: 7 };
const OTHER = { ...ISSUE, issue: 8 };
const comment = (body: string): FeedbackOp[] => [{ type: "comment", body }];
const bodyOf = (entry: LaneEntry | undefined) => (JSON.parse(entry?.ops ?? "[]") as Array<{ body?: string }>)[0]?.body;

describe("the feedback lanes", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(inject("redisUrl"));
  });
  afterAll(async () => {
    await redis.quit();
  });
  const fresh = () => new FeedbackLanes(redis, `lanes-${randomUUID().slice(0, 8)}`);

  it("keeps an issue's entries in the order queued, the same key once within 24 h, and counts what is still to write", async () => {
    const lanes = fresh();
    const lane = lanes.laneOf(ISSUE);
    expect(await lanes.add(ISSUE, lane, comment("one"), "line-1")).toBeTypeOf("number");
    expect(await lanes.add(ISSUE, lane, comment("one again"), "line-1")).toBeUndefined();
    expect(await lanes.add(ISSUE, lane, comment("two"), "line-2")).toBeTypeOf("number");
    expect(await lanes.add(OTHER, lanes.laneOf(OTHER), comment("other"), "line-1")).toBeTypeOf("number");
    expect(await lanes.unfinished()).toBe(3);
    expect((await lanes.owing()).sort()).toEqual(["acme/widgets#7", "acme/widgets#8"]);
    expect(await redis.pttl(lanes.idKey(lanes.entryId(ISSUE, "line-1")))).toBeGreaterThan(23 * 3600_000);

    const first = await lanes.head(lane);
    expect(first).toMatchObject({ lane, repo: "acme/widgets", issue: 7, installationId: 5, progress: 0 });
    expect(bodyOf(first)).toBe("one");
    await lanes.finish(first!);
    expect(bodyOf(await lanes.head(lane))).toBe("two");
    // Written: gone from its lane, its key still refused.
    expect(await lanes.add(ISSUE, lane, comment("one"), "line-1")).toBeUndefined();
    expect(await redis.exists(lanes.entryKey(first!.id))).toBe(0);
    await lanes.finish((await lanes.head(lane))!);
    expect(await lanes.head(lane)).toBeUndefined();
    expect(await lanes.owing()).toEqual(["acme/widgets#8"]);
    expect(await lanes.unfinished()).toBe(1);
  });

  it("says when the lane's head is due: a later entry waits behind an earlier one put off", async () => {
    const lanes = fresh();
    const lane = lanes.laneOf(ISSUE);
    const before = Date.now();
    const later = await lanes.add(ISSUE, lane, comment("in a minute"), "later", { delayMs: 60_000 });
    expect(later).toBeGreaterThanOrEqual(before + 60_000);
    // Due now, but behind the entry put off: the lane's head decides.
    expect(await lanes.add(ISSUE, lane, comment("now"), "now")).toBe(later);
    expect((await lanes.head(lane))?.dueAt).toBe(later);
    // The render lane is another lane: its own head.
    const render = await lanes.add(ISSUE, lanes.laneOf(ISSUE, "render"), [{ type: "status", seq: 1 }], "status-1");
    expect(render).toBeLessThan(later!);
  });

  it("saves an entry's progress, unless it was removed meanwhile", async () => {
    const lanes = fresh();
    const lane = lanes.laneOf(ISSUE);
    await lanes.add(ISSUE, lane, [...comment("a"), ...comment("b")], "two");
    const entry = (await lanes.head(lane))!;
    await lanes.saveProgress(entry, 1);
    expect((await lanes.head(lane))?.progress).toBe(1);
    expect(await lanes.remove(ISSUE, "two")).toBe(1);
    await lanes.saveProgress(entry, 2);
    expect(await redis.exists(lanes.entryKey(entry.id))).toBe(0);
    expect(await lanes.remove(ISSUE, "two")).toBe(0);
    expect(await lanes.owing()).toEqual([]);
  });

  it("a withdrawn entry leaves the middle of its lane; a head whose record Redis lost is dropped", async () => {
    const lanes = fresh();
    const lane = lanes.laneOf(ISSUE);
    for (const key of ["a", "b", "c"]) await lanes.add(ISSUE, lane, comment(key), key);
    expect(await lanes.remove(ISSUE, "b")).toBe(1);
    await redis.del(lanes.entryKey(lanes.entryId(ISSUE, "a")));
    expect(bodyOf(await lanes.head(lane))).toBe("c");
    expect(await redis.lrange(lanes.laneKey(lane), 0, -1)).toEqual([lanes.entryId(ISSUE, "c")]);
    expect(await lanes.unfinished()).toBe(1);
  });

  it("a key made afresh is never refused and keeps no 24 h key", async () => {
    const lanes = fresh();
    const lane = lanes.laneOf(ISSUE);
    expect(await lanes.add(ISSUE, lane, comment("x"), "ops-1", { fresh: true })).toBeTypeOf("number");
    expect(await redis.exists(lanes.idKey(lanes.entryId(ISSUE, "ops-1")))).toBe(0);
  });
});
