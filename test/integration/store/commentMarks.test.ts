import { describe, expect, it } from "vitest";
import { storeRedis } from "../../support/storeRedis.js";
import {} from "./support.js";

const { redis, freshStore } = storeRedis();

describe("CommentMarks: one-time marks", () => {
  it("firstTime is true once per key until it expires", async () => {
    const store = freshStore();
    expect(await store.commentMarks.firstTime("help:octo/demo#7")).toBe(true);
    expect(await store.commentMarks.firstTime("help:octo/demo#7")).toBe(false);
    expect(await store.commentMarks.firstTime("help:octo/demo#8")).toBe(true);
    expect(await store.commentMarks.firstTime("short", 1)).toBe(true);
    const ttl = await redis().ttl(store.commentMarks.onceKey("help:octo/demo#7"));
    expect(ttl).toBeGreaterThan(29 * 86400);
    await new Promise((r) => setTimeout(r, 1_150));
    expect(await store.commentMarks.firstTime("short", 1)).toBe(true);
  });
});

describe("CommentMarks: replies handled before their question", () => {
  it("keeps each issue's early replies ten minutes, oldest first, and gives those written at or after a time", async () => {
    const store = freshStore();
    const ref = { repo: "octo/demo", issue: 7 };
    const at = Date.parse("2026-12-07T10:00:00Z");
    await store.commentMarks.noteEarlyReply(ref, "delivery-b", at + 2000);
    await store.commentMarks.noteEarlyReply(ref, "delivery-a", at);
    await store.commentMarks.noteEarlyReply({ repo: "octo/demo", issue: 8 }, "delivery-other", at + 3000);
    expect(await store.commentMarks.earlyReplies(ref, at - 1000)).toEqual(["delivery-a", "delivery-b"]);
    expect(await store.commentMarks.earlyReplies(ref, at + 1000)).toEqual(["delivery-b"]);
    expect(await store.commentMarks.earlyReplies(ref, at + 3000)).toEqual([]);
    const ttl = await redis().pttl(store.commentMarks.earlyRepliesKey(ref));
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
    // One written ten minutes after another leaves the older one out.
    await store.commentMarks.noteEarlyReply(ref, "delivery-c", at + 10 * 60_000 + 1);
    expect(await store.commentMarks.earlyReplies(ref, 0)).toEqual(["delivery-b", "delivery-c"]);
  });
});
