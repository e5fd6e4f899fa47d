import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { InboundStream } from "../../../src/jobs/inboundStream.js";
import type { InboundEvent } from "../../../src/jobs/payloads.js";
import { common } from "../../support/gateFakes.js";
import { waitOut } from "../../support/harness.js";

/** An entry idle this long counts as stalled in the test below: far above what a busy machine adds between two calls. */
const STALLED_MS = 1000;

/** A reply on issue #7, delivered as `deliveryId`. */
function reply(deliveryId: string, body = "SQLite"): InboundEvent {
  return {
    kind: "comment",
    action: "created",
    ...common({ sender: "maintainer" }),
    deliveryId,
    comment: { id: 42, body, url: "https://github.test/c/42", createdAt: "2026-12-01T11:00:00Z", author: { login: "maintainer", type: "User" } },
  };
}

describe("InboundStream", () => {
  let redis: Redis;
  let blocking: Redis;
  beforeAll(() => {
    redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
    blocking = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await redis.quit();
    await blocking.quit();
  });
  const fresh = async () => {
    const stream = new InboundStream(redis, `inbound-${randomUUID().slice(0, 8)}`);
    await stream.ensureGroup();
    return stream;
  };

  it("records a delivery once: its redelivery is refused, and one reader gets it", async () => {
    const stream = await fresh();
    expect(await stream.add(reply("d-1"))).toBe(true);
    expect(await stream.add(reply("d-1", "changed"))).toBe(false);
    expect(await redis.exists(stream.deliveryKey("d-1"), stream.deliveryKey("d-2"))).toBe(1);
    const [entry, ...rest] = await stream.read(blocking, "a", 10, 100);
    expect(rest).toEqual([]);
    expect(entry!.delivery).toBe("d-1");
    expect(JSON.parse(entry!.event)).toEqual(reply("d-1"));
    // Handed to "a": another reader is not given it.
    expect(await stream.read(blocking, "b", 10, 50)).toEqual([]);
    expect(await stream.getJobCounts("waiting", "active", "delayed", "failed")).toEqual({ waiting: 0, active: 1, delayed: 0, failed: 0 });
  });

  it("a finished delivery leaves the stream and keeps its outcome, without the event's text", async () => {
    const stream = await fresh();
    await stream.add(reply("d-1"));
    await stream.add(reply("d-2"));
    const entries = await stream.read(blocking, "a", 10, 100);
    expect(entries.map((e) => e.delivery)).toEqual(["d-1", "d-2"]);
    await stream.finish(entries[0]!.id, { delivery: "d-1", kind: "comment", repo: "acme/widgets", issue: 7, comment: 42, outcome: "answer recorded" });
    expect(await stream.unfinished()).toBe(1);
    expect(await stream.outcomes()).toEqual([{ delivery: "d-1", kind: "comment", repo: "acme/widgets", issue: 7, comment: 42, outcome: "answer recorded" }]);
    expect(JSON.stringify(await redis.xrange(stream.outcomesKey(), "-", "+"))).not.toContain("SQLite");
    // One still to do, one outcome.
    expect([await redis.xlen(stream.streamKey()), await redis.xlen(stream.outcomesKey())]).toEqual([1, 1]);
  });

  it("a failed delivery moves to the failed stream, where a withdrawal still deletes its text", async () => {
    const stream = await fresh();
    await stream.add(reply("d-1"));
    const [entry] = await stream.read(blocking, "a", 1, 100);
    await stream.fail(entry!, "GitHub said 502", 5);
    expect(await stream.getJobCounts("waiting", "active", "failed")).toEqual({ waiting: 0, active: 0, failed: 1 });
    const [, fields] = ((await redis.xrange(stream.failedKey(), "-", "+")) as [string, string[]][])[0]!;
    expect(fields).toEqual(expect.arrayContaining(["delivery", "d-1", "error", "GitHub said 502", "attempts", "5"]));
    expect(await stream.forget("d-1")).toBe(1);
    expect(await redis.xlen(stream.failedKey())).toBe(0);
    expect(await stream.forget("d-1")).toBe(0);
  });

  it("a withdrawal deletes a waiting delivery, so no reader gets its text", async () => {
    const stream = await fresh();
    await stream.add(reply("d-1"));
    await stream.add(reply("d-2"));
    expect(await stream.forget("d-1")).toBe(1);
    expect((await stream.read(blocking, "a", 10, 100)).map((e) => e.delivery)).toEqual(["d-2"]);
    expect(await stream.forget("never-seen")).toBe(0);
  });

  it("an entry its reader stopped keeping is taken over with its hand-out count; the old reader then keeps none", async () => {
    const stream = await fresh();
    await stream.add(reply("d-1"));
    const [entry] = await stream.read(blocking, "dead", 1, 100);
    expect(await stream.keep("dead", [entry!.id])).toBe(1);
    // Kept just now: not idle long enough to take over.
    expect((await stream.claimStalled("alive", 60_000, 10)).entries).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const { entries: claimed } = await stream.claimStalled("alive", 20, 10);
    expect(claimed).toEqual([{ ...entry!, deliveries: 2 }]);
    expect(await stream.keep("dead", [entry!.id])).toBe(0);
    expect(await stream.keep("alive", [entry!.id])).toBe(1);
  });

  it("reads again after Redis lost the group (a wipe), and counts none pending meanwhile", async () => {
    const stream = await fresh();
    await redis.del(stream.streamKey());
    expect(await stream.getJobCounts("waiting", "active")).toEqual({ waiting: 0, active: 0 });
    await stream.add(reply("d-1"));
    expect((await stream.read(blocking, "a", 10, 100)).map((e) => e.delivery)).toEqual(["d-1"]);
    expect((await stream.claimStalled("b", 0, 10)).entries).toHaveLength(1);
  });

  it("a stalled entry behind many kept ones is reached by going on from the cursor", async () => {
    const stream = await fresh();
    for (let i = 0; i < 31; i++) await stream.add(reply(`d-${i}`));
    const kept = await stream.read(blocking, "alive", 30, 100);
    const [stalled] = await stream.read(blocking, "dead", 1, 100);
    // Idle time is the event here: the dead reader's entry ages past STALLED_MS, while the kept ones,
    // kept just now, stay well below it even on a busy machine (20 ms of margin failed under load).
    await waitOut(STALLED_MS + 500);
    await stream.keep(
      "alive",
      kept.map((e) => e.id),
    );
    // One at a time, Redis looks at ten pending entries a call: the first call does not reach the 31st.
    const first = await stream.claimStalled("c", STALLED_MS, 1);
    expect(first.entries).toEqual([]);
    let cursor = first.next;
    let found: string[] = [];
    for (let call = 0; call < 5 && found.length === 0; call++) {
      const { next, entries } = await stream.claimStalled("c", STALLED_MS, 1, cursor);
      cursor = next;
      found = entries.map((e) => e.delivery);
    }
    expect(found).toEqual([stalled!.delivery]);
  });
});
