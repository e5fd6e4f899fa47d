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
