import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FeedbackOp } from "../../../src/jobs/payloads.js";
import { FeedbackOutbox, type OutboxEntry, type Taken } from "../../../src/status/feedbackOutbox.js";

const ISSUE = { installationId: 5, repo: "acme/widgets", issue: 7 };
const OTHER = { ...ISSUE, issue: 8 };
const comment = (body: string): FeedbackOp[] => [{ type: "comment", body }];
const W = "writer-1";

/** The entry taken, or a failure naming what was taken instead. */
function entryOf(taken: Taken): OutboxEntry {
  if (taken.kind !== "entry") throw new Error(`expected an entry, took ${JSON.stringify(taken)}`);
  return taken.entry;
}
const bodyOf = (entry: OutboxEntry) => (JSON.parse(entry.ops) as Array<{ body?: string }>)[0]?.body;

describe("the feedback outbox", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(inject("redisUrl"));
  });
  afterAll(async () => {
    await redis.quit();
  });
  const fresh = async () => {
    const outbox = new FeedbackOutbox(redis, `outbox-${randomUUID().slice(0, 8)}`);
    expect(await outbox.hold(W, 10_000)).toBe(true);
    return outbox;
  };

  it("queues the same feedback once (its key within 24 h), and counts what is still to write", async () => {
    const outbox = await fresh();
    expect(await outbox.add(ISSUE, comment("one"), "line-1")).toBe(true);
    expect(await outbox.add(ISSUE, comment("one again"), "line-1")).toBe(false);
    expect(await outbox.add(ISSUE, comment("two"), "line-2")).toBe(true);
    expect(await outbox.add(ISSUE, [], "nothing")).toBe(false);
    expect(await outbox.pending()).toEqual({ entries: 2, lanes: 1 });
    expect(await redis.pttl(outbox.idKey(outbox.entryId(ISSUE, "line-1")))).toBeGreaterThan(23 * 3600_000);
    const first = entryOf(await outbox.take(W));
    expect(first).toMatchObject({ repo: "acme/widgets", issue: 7, installationId: 5, progress: 0, attempts: 0 });
    expect(bodyOf(first)).toBe("one");
    await outbox.finish(first);
    // Written: gone from the outbox, its id still refused.
    expect(await outbox.add(ISSUE, comment("one"), "line-1")).toBe(false);
    expect(await redis.exists(outbox.entryKey(first.id))).toBe(0);
    expect(await outbox.unfinished()).toBe(1);
  });

  it("tells a waiting writer when the earliest entry queued since it last looked is due, a later one never moving it", async () => {
    const outbox = await fresh();
    const blocking = redis.duplicate();
    try {
      const before = Date.now();
      await outbox.add(ISSUE, comment("in a minute"), "later", { delayMs: 60_000 });
      await outbox.add(OTHER, comment("now"), "now");
      await outbox.add(ISSUE, comment("in an hour"), "much later", { delayMs: 3_600_000 });
      const dueAt = await outbox.waitForWork(blocking, 1000);
      expect(dueAt).toBeGreaterThanOrEqual(before);
      expect(dueAt).toBeLessThan(before + 60_000);
      // Taken: the next wait times out unless something else is queued.
      expect(await outbox.waitForWork(blocking, 50)).toBeUndefined();
    } finally {
      blocking.disconnect();
    }
  });

  it("an entry whose key was made afresh is queued without a 24 h key to refuse it again", async () => {
    const outbox = await fresh();
    expect(await outbox.add(ISSUE, comment("label off"), "line-9", { fresh: true })).toBe(true);
    expect(await redis.exists(outbox.idKey(outbox.entryId(ISSUE, "line-9")))).toBe(0);
    expect(await outbox.unfinished()).toBe(1);
    expect(bodyOf(entryOf(await outbox.take(W)))).toBe("label off");
  });

  it("hands out an issue's writes in order, a later one only after the one before it is written", async () => {
    const outbox = await fresh();
    for (const n of [1, 2, 3]) await outbox.add(ISSUE, comment(`w${n}`), `k${n}`);
    const first = entryOf(await outbox.take(W));
    expect(bodyOf(first)).toBe("w1");
    // Not written yet: the writer is handed the same head again (a crash mid-write retries it).
    expect(entryOf(await outbox.take(W)).id).toBe(first.id);
    // Finished, the writer is told the next lane is due now (0 ms), or that nothing is left (undefined).
    expect(await outbox.finish(first)).toBe(0);
    const second = entryOf(await outbox.take(W));
    expect(bodyOf(second)).toBe("w2");
    expect(await outbox.finish(second)).toBe(0);
    expect(await outbox.finish(entryOf(await outbox.take(W)))).toBeUndefined();
    expect(await outbox.take(W)).toEqual({ kind: "idle", nextDueAt: undefined });
    expect(await redis.exists(outbox.lanesKey(), outbox.laneKey("acme/widgets#7"))).toBe(0);
  });

  it("a delayed write holds its issue's later writes back, not another issue's nor the issue's status render", async () => {
    const outbox = await fresh();
    const now = Date.now();
    await outbox.add(ISSUE, comment("later"), "delayed", { delayMs: 60_000 });
    await outbox.add(ISSUE, comment("behind it"), "behind");
    await outbox.add(ISSUE, [{ type: "status", seq: 3 }], "status-3", { lane: "render" });
    await outbox.add(OTHER, comment("elsewhere"), "other");
    const taken: string[] = [];
    const dueIn: (number | undefined)[] = [];
    for (let t = await outbox.take(W); t.kind === "entry"; t = await outbox.take(W)) {
      taken.push(t.entry.ops);
      dueIn.push(await outbox.finish(t.entry));
    }
    // After the last one written, the delayed lane is due in about a minute.
    expect(dueIn[0]).toBe(0);
    expect(dueIn[1]).toBeGreaterThan(55_000);
    expect(taken).toEqual([JSON.stringify([{ type: "status", seq: 3 }]), JSON.stringify(comment("elsewhere"))]);
    const idle = await outbox.take(W);
    expect(idle.kind === "idle" && idle.nextDueAt! >= now + 60_000).toBe(true);
    // A minute on: the delayed write, then the one behind it.
    const delayed = entryOf(await outbox.take(W, now + 61_000));
    expect(bodyOf(delayed)).toBe("later");
    await outbox.finish(delayed);
    expect(bodyOf(entryOf(await outbox.take(W, now + 61_000)))).toBe("behind it");
  });

  it("a write put off keeps its place and its tries; the issue waits with it", async () => {
    const outbox = await fresh();
    await outbox.add(ISSUE, comment("first"), "a");
    await outbox.add(ISSUE, comment("second"), "b");
    const first = entryOf(await outbox.take(W));
    const dueAt = Date.now() + 30_000;
    await outbox.putOff(first, dueAt, 2);
    expect(await outbox.take(W)).toEqual({ kind: "idle", nextDueAt: dueAt });
    expect(await outbox.getJobCounts("waiting", "delayed", "failed")).toEqual({ waiting: 1, delayed: 1, failed: 0 });
    const again = entryOf(await outbox.take(W, dueAt));
    expect(again).toMatchObject({ id: first.id, attempts: 2 });
  });

  it("saves how far an entry got, and a retry is handed that progress", async () => {
    const outbox = await fresh();
    await outbox.add(ISSUE, [...comment("a"), ...comment("b")], "two");
    const entry = entryOf(await outbox.take(W));
    await outbox.saveProgress(entry, 1);
    expect(entryOf(await outbox.take(W)).progress).toBe(1);
  });

  it("only the lease's holder is handed entries; a released lease goes to the next writer", async () => {
    const outbox = await fresh();
    await outbox.add(ISSUE, comment("x"), "x");
    expect(await outbox.hold("writer-2", 10_000)).toBe(false);
    expect(await outbox.take("writer-2")).toEqual({ kind: "lease" });
    expect(await outbox.hold(W, 10_000)).toBe(true); // kept by its holder
    await outbox.release("writer-2"); // not its lease: nothing happens
    expect(await outbox.hold("writer-2", 10_000)).toBe(false);
    await outbox.release(W);
    expect(await outbox.hold("writer-2", 10_000)).toBe(true);
    expect(entryOf(await outbox.take("writer-2")).ops).toBe(JSON.stringify(comment("x")));
  });

  it("an entry that kept failing moves to the failed stream with its ops; its issue's next write goes on", async () => {
    const outbox = await fresh();
    await outbox.add(ISSUE, comment("doomed"), "doomed");
    await outbox.add(ISSUE, comment("next"), "next");
    const doomed = entryOf(await outbox.take(W));
    await outbox.fail(doomed, "GitHub said 422", 8);
    expect(bodyOf(entryOf(await outbox.take(W)))).toBe("next");
    const [[, fields]] = (await redis.xrange(outbox.failedKey(), "-", "+")) as [[string, string[]]];
    const record = Object.fromEntries(fields.flatMap((v, i) => (i % 2 === 0 ? [[v, fields[i + 1]]] : [])));
    expect(record).toMatchObject({ id: doomed.id, repo: "acme/widgets", ops: JSON.stringify(comment("doomed")), error: "GitHub said 422", attempts: "8" });
    expect(await outbox.getJobCounts("failed")).toEqual({ failed: 1 });
    expect(await outbox.unfinished()).toBe(1);
    expect(await outbox.add(ISSUE, comment("doomed"), "doomed")).toBe(false);
  });

  it("removes an entry holding withdrawn text, queued or failed; its issue's later writes no longer wait", async () => {
    const outbox = await fresh();
    await outbox.add(ISSUE, comment("echo of a reply"), "echo-1", { delayMs: 60_000 });
    await outbox.add(ISSUE, comment("after it"), "after");
    await outbox.add(OTHER, comment("failing echo"), "echo-2");
    expect(await outbox.remove(ISSUE, "echo-1")).toBe(1);
    const after = entryOf(await outbox.take(W));
    expect(bodyOf(after)).toBe("after it");
    expect(await outbox.remove(ISSUE, "echo-1")).toBe(0);
    await outbox.finish(after);

    const failing = entryOf(await outbox.take(W));
    expect(bodyOf(failing)).toBe("failing echo");
    await outbox.fail(failing, "boom", 8);
    expect(await redis.xlen(outbox.failedKey())).toBe(1);
    expect(await outbox.remove(OTHER, "echo-2")).toBe(1);
    expect(await redis.xlen(outbox.failedKey())).toBe(0);
    expect(await outbox.remove(OTHER, "echo-2")).toBe(0);
  });

  it("a lane lost from the index is indexed again by the issue's next write, its older head first", async () => {
    const outbox = await fresh();
    await outbox.add(ISSUE, comment("older"), "older");
    await redis.zrem(outbox.lanesKey(), "acme/widgets#7"); // as an evicting Redis could leave it
    expect(await outbox.take(W)).toEqual({ kind: "idle", nextDueAt: undefined });
    await outbox.add(ISSUE, comment("newer"), "newer");
    expect(bodyOf(entryOf(await outbox.take(W)))).toBe("older");
  });

  it("progress saved after an entry was removed does not bring it back", async () => {
    const outbox = await fresh();
    await outbox.add(ISSUE, comment("echo"), "echo-9");
    const entry = entryOf(await outbox.take(W));
    await outbox.remove(ISSUE, "echo-9");
    await outbox.saveProgress(entry, 1);
    await outbox.finish(entry);
    expect(await redis.exists(outbox.entryKey(entry.id))).toBe(0);
    expect(await outbox.unfinished()).toBe(0);
    expect(await outbox.take(W)).toEqual({ kind: "idle", nextDueAt: undefined });
  });
});
