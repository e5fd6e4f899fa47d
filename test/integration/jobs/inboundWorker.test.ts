import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { InboundStream } from "../../../src/jobs/inboundStream.js";
import { startInboundWorker, type InboundWorker } from "../../../src/jobs/inboundWorker.js";
import type { InboundEvent } from "../../../src/jobs/payloads.js";
import { common } from "../../support/gateFakes.js";
import { waitFor } from "../../support/harness.js";

const closed = (deliveryId: string): InboundEvent => ({ kind: "closed", ...common(), deliveryId });

/** Fast clocks: a stalled entry taken over after 300 ms, retries 10, 20, 40, 80 ms apart. */
const TIMING = { stalledAfterMs: 300, claimEveryMs: 100, keepEveryMs: 100, backoffMs: 10 };

describe("the inbound worker", () => {
  let redis: Redis;
  let workers: InboundWorker[] = [];
  const warnings: Array<Record<string, unknown>> = [];
  const log = { warn: (fields: Record<string, unknown>) => void warnings.push(fields), error: () => undefined, debug: () => undefined };
  beforeAll(() => {
    redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: null });
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.close(2000)));
    workers = [];
    warnings.length = 0;
  });
  afterAll(async () => {
    await redis.quit();
  });

  const start = (stream: InboundStream, handle: (event: InboundEvent) => Promise<string>, timing = TIMING) => {
    const worker = startInboundWorker({ stream, log, handle }, redis, timing);
    workers.push(worker);
    return worker;
  };
  const fresh = () => new InboundStream(redis, `inbound-${randomUUID().slice(0, 8)}`);

  it("handles deliveries in parallel and records each one's outcome", async () => {
    const stream = fresh();
    let running = 0;
    let most = 0;
    start(stream, async (event) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 50));
      running--;
      return `closed ${event.deliveryId}`;
    });
    for (let i = 0; i < 40; i++) await stream.add(closed(`d-${i}`));
    await waitFor("every delivery handled", async () => (await stream.outcomes()).length === 40);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(32);
    expect(await stream.unfinished()).toBe(0);
    expect((await stream.outcomes()).find((o) => o.delivery === "d-7")).toEqual({
      delivery: "d-7",
      kind: "closed",
      repo: "acme/widgets",
      issue: 7,
      outcome: "closed d-7",
    });
  });

  it("tries a failing delivery five times, then moves it to the failed stream", async () => {
    const stream = fresh();
    let tries = 0;
    start(stream, () => {
      tries++;
      return Promise.reject(new Error("GitHub said 502"));
    });
    await stream.add(closed("d-1"));
    await waitFor("the delivery failed", async () => (await stream.getJobCounts("failed")).failed === 1);
    expect(tries).toBe(5);
    expect(await stream.getJobCounts("waiting", "active")).toEqual({ waiting: 0, active: 0 });
    expect(warnings.map((w) => w.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(await stream.outcomes()).toEqual([]);
  });

  it("many retries leave no listener behind (no EventTarget leak warning)", async () => {
    const stream = fresh();
    const leaks: Error[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === "MaxListenersExceededWarning") leaks.push(warning);
    };
    process.on("warning", onWarning);
    try {
      start(stream, () => Promise.reject(new Error("GitHub said 502")));
      // Three deliveries, four backoffs each: twelve waits, more than the ten listeners Node warns at.
      for (const id of ["d-1", "d-2", "d-3"]) await stream.add(closed(id));
      await waitFor("the deliveries failed", async () => (await stream.getJobCounts("failed")).failed === 3);
    } finally {
      process.off("warning", onWarning);
    }
    expect(leaks).toEqual([]);
  });

  it("a delivery that succeeds on a retry is handled once", async () => {
    const stream = fresh();
    let tries = 0;
    start(stream, () => (++tries < 3 ? Promise.reject(new Error("Redis blinked")) : Promise.resolve("closed")));
    await stream.add(closed("d-1"));
    await waitFor("the delivery handled", async () => (await stream.outcomes()).length === 1);
    expect(tries).toBe(3);
    expect(await stream.getJobCounts("failed")).toEqual({ failed: 0 });
  });

  it("fails an event that does not parse at once: no retry mends it", async () => {
    const stream = fresh();
    let tries = 0;
    start(stream, () => Promise.resolve(String(++tries)));
    await redis.xadd(stream.streamKey(), "*", "delivery", "d-bad", "event", JSON.stringify({ kind: "closed", repo: "../../x" }));
    await waitFor("the delivery failed", async () => (await stream.getJobCounts("failed")).failed === 1);
    expect(tries).toBe(0);
    expect(warnings).toHaveLength(1);
  });

  it("a delivery withdrawn while it waits to be tried again is dropped, not tried again", async () => {
    const stream = fresh();
    let tries = 0;
    start(stream, async () => {
      if (++tries === 1) await stream.forget("d-1"); // as src/gates/withdrawals.ts does, while the first try runs
      throw new Error("fails once");
    });
    await stream.add(closed("d-1"));
    await waitFor("the delivery dropped", async () => (await stream.outcomes()).length === 1);
    expect((await stream.outcomes())[0]!.outcome).toMatch(/^dropped/);
    expect(tries).toBe(1);
    expect(await stream.getJobCounts("waiting", "active", "failed")).toEqual({ waiting: 0, active: 0, failed: 0 });
  });

  it("takes over a delivery whose worker died, and fails one that was handed out too often", async () => {
    const stream = fresh();
    await stream.ensureGroup();
    await stream.add(closed("d-dead"));
    await stream.add(closed("d-poison"));
    // A worker that read both and died.
    const blocking = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
    const [dead, poison] = await stream.read(blocking, "ghost", 2, 100);
    blocking.disconnect();
    // The poison entry has been handed out 11 times already: each time its worker died.
    await redis.xclaim(stream.streamKey(), stream.group, "ghost", 0, poison!.id, "RETRYCOUNT", 11);
    const handled: string[] = [];
    start(stream, (event) => Promise.resolve(void handled.push(event.deliveryId)).then(() => "closed"));
    await waitFor("the dead worker's delivery taken over", async () => (await stream.outcomes()).length === 1);
    await waitFor("the poison delivery failed", async () => (await stream.getJobCounts("failed")).failed === 1);
    expect(handled).toEqual(["d-dead"]);
    expect(dead!.delivery).toBe("d-dead");
    expect(await stream.unfinished()).toBe(0);
  });

  it("keeps the entry it handles past the stall bound: a second worker does not take it over", async () => {
    const stream = fresh();
    const timing = { ...TIMING, stalledAfterMs: 1500 };
    const seen: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const handle = async (event: InboundEvent) => {
      seen.push(event.deliveryId);
      await slow;
      return "closed";
    };
    start(stream, handle, timing);
    start(stream, handle, timing);
    await stream.add(closed("d-1"));
    await waitFor("a worker handling it", () => seen.length === 1);
    const pending = async () => ((await redis.xpending(stream.streamKey(), stream.group, "-", "+", 10)) as [string, string, number, number][])[0];
    const [, owner] = (await pending())!;
    const since = Date.now();
    // Twice the stall bound after it was handed out, it is still its first worker's and idle less than the bound.
    const held = await waitFor("twice the stall bound to pass", async () => (Date.now() - since > 3000 ? await pending() : undefined), 10_000);
    expect(held[1]).toBe(owner);
    expect(held[2]).toBeLessThan(timing.stalledAfterMs);
    expect(held[3]).toBe(1);
    release();
    await waitFor("the delivery handled", async () => (await stream.outcomes()).length === 1);
    expect(seen).toEqual(["d-1"]);
  });

  it("close lets the delivery being handled finish, then leaves the group", async () => {
    const stream = fresh();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const worker = start(stream, async () => {
      started = true;
      await slow;
      return "closed";
    });
    await stream.add(closed("d-1"));
    await waitFor("the delivery being handled", () => started);
    const closing = worker.close(5000);
    setTimeout(release, 100);
    await closing;
    expect((await stream.outcomes()).map((o) => o.delivery)).toEqual(["d-1"]);
    const consumers = (await redis.xinfo("CONSUMERS", stream.streamKey(), stream.group)) as unknown[];
    expect(consumers).toEqual([]);
  });
});
