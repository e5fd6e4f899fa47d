import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { ZodError } from "zod";
import { WritesDeferred } from "../../../src/status/budgetedWriter.js";
import { FeedbackOutbox, type OutboxEntry } from "../../../src/status/feedbackOutbox.js";
import { startFeedbackWorker, type FeedbackWorker } from "../../../src/status/feedbackWorker.js";
import { waitFor } from "../../support/harness.js";

const ISSUE = { installationId: 5, repo: "acme/widgets", issue: 7 };
const OTHER = { ...ISSUE, issue: 8 };

/** Fast clocks: a lease kept (or looked for) every 50 ms, retries 5, 10, 20 … ms apart. Its length only matters to a writer that dies. */
const TIMING = { leaseMs: 5000, keepEveryMs: 50, backoffMs: 5, idleMs: 200 };

type Write = (entry: OutboxEntry, saveProgress: (done: number) => Promise<void>) => Promise<number>;

/** The comments' bodies an entry holds. */
const bodies = (entry: OutboxEntry) => (JSON.parse(entry.ops) as Array<{ body: string }>).map((op) => op.body);

describe("the feedback worker", () => {
  let redis: Redis;
  let workers: FeedbackWorker[] = [];
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

  const start = (outbox: FeedbackOutbox, write: Write) => {
    const worker = startFeedbackWorker({ outbox, log, write }, redis, TIMING);
    workers.push(worker);
    return worker;
  };
  const fresh = () => new FeedbackOutbox(redis, `feedback-${randomUUID().slice(0, 8)}`);
  const add = (outbox: FeedbackOutbox, target: typeof ISSUE, body: string, options?: { delayMs?: number }) =>
    outbox.add(target, [{ type: "comment", body }], body, options);

  it("two workers write one entry at a time, each issue's in the order queued", async () => {
    const outbox = fresh();
    const written: string[] = [];
    let writing = 0;
    let most = 0;
    const write: Write = async (entry) => {
      most = Math.max(most, ++writing);
      await new Promise((resolve) => setTimeout(resolve, 5));
      written.push(...bodies(entry));
      writing--;
      return 1;
    };
    start(outbox, write);
    start(outbox, write);
    for (let i = 0; i < 10; i++) {
      await add(outbox, ISSUE, `a${i}`);
      await add(outbox, OTHER, `b${i}`);
    }
    await waitFor("every entry written", () => written.length === 20);
    expect(most).toBe(1);
    expect(written.filter((b) => b.startsWith("a"))).toEqual(Array.from({ length: 10 }, (_, i) => `a${i}`));
    expect(written.filter((b) => b.startsWith("b"))).toEqual(Array.from({ length: 10 }, (_, i) => `b${i}`));
    expect(await outbox.unfinished()).toBe(0);
  });

  it("a write the budget puts off waits without using a try, and its issue's next write after it", async () => {
    const outbox = fresh();
    const written: string[] = [];
    const tries: number[] = [];
    let deferrals = 0;
    start(outbox, (entry) => {
      tries.push(entry.attempts);
      if (bodies(entry)[0] === "first" && deferrals++ < 2) return Promise.reject(new WritesDeferred("the write budget per minute is spent", 100));
      written.push(...bodies(entry));
      return Promise.resolve(1);
    });
    const queuedAt = Date.now();
    await add(outbox, ISSUE, "first");
    await add(outbox, ISSUE, "second");
    await waitFor("both written", () => written.length === 2);
    expect(written).toEqual(["first", "second"]);
    expect(Date.now() - queuedAt).toBeGreaterThanOrEqual(200);
    expect(tries).toEqual([0, 0, 0, 0]);
    expect(warnings).toEqual([]);
  });

  it("tries a failing entry eight times, then fails it; the issue's next write goes on", async () => {
    const outbox = fresh();
    const written: string[] = [];
    start(outbox, (entry) => {
      if (bodies(entry)[0] === "doomed") return Promise.reject(new Error("GitHub said 502"));
      written.push(...bodies(entry));
      return Promise.resolve(1);
    });
    await add(outbox, ISSUE, "doomed");
    await add(outbox, ISSUE, "after");
    await waitFor("the next write", () => written.length === 1, 10_000);
    expect(written).toEqual(["after"]);
    expect(warnings.map((w) => w.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await outbox.getJobCounts("failed")).toEqual({ failed: 1 });
  });

  it("an entry whose ops do not parse is failed at once", async () => {
    const outbox = fresh();
    start(outbox, () => Promise.reject(new ZodError([])));
    await add(outbox, ISSUE, "garbled");
    await waitFor("the entry failed", async () => (await outbox.getJobCounts("failed")).failed === 1);
    expect(warnings.map((w) => w.attempt)).toEqual([1]);
  });

  it("a retry goes on from the op after the last one saved: a comment is not posted twice", async () => {
    const outbox = fresh();
    const posted: string[] = [];
    let crashed = false;
    start(outbox, async (entry, saveProgress) => {
      const ops = bodies(entry);
      for (let i = entry.progress; i < ops.length; i++) {
        posted.push(ops[i]!);
        await saveProgress(i + 1);
        if (i === 0 && !crashed) {
          crashed = true;
          throw new Error("connection reset");
        }
      }
      return ops.length;
    });
    await outbox.add(
      ISSUE,
      ["one", "two", "three"].map((body) => ({ type: "comment" as const, body })),
      "three",
    );
    await waitFor("every comment posted", () => posted.length >= 3);
    await waitFor("the entry done", async () => (await outbox.unfinished()) === 0);
    expect(posted).toEqual(["one", "two", "three"]);
  });

  it("takes over from a writer that died holding the lease, once the lease runs out", async () => {
    const outbox = fresh();
    expect(await outbox.hold("dead-writer", 300)).toBe(true);
    const written: string[] = [];
    const startedAt = Date.now();
    start(outbox, (entry) => Promise.resolve(written.push(...bodies(entry))));
    await add(outbox, ISSUE, "orphan");
    await waitFor("the write", () => written.length === 1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);
    expect(await redis.get(outbox.writerKey())).not.toBe("dead-writer");
  });

  it("a paused worker takes nothing until resumed; a closed one gives its lease up at once", async () => {
    const outbox = fresh();
    const written: string[] = [];
    const worker = start(outbox, (entry) => Promise.resolve(written.push(...bodies(entry))));
    await add(outbox, ISSUE, "before");
    await waitFor("the first write", () => written.length === 1);
    worker.pause();
    await add(outbox, ISSUE, "while paused");
    await waitFor("the entry queued, put off by nobody", async () => (await outbox.getJobCounts("waiting")).waiting === 1);
    // The lease stays with the paused worker: no other takes the entry either.
    const other: string[] = [];
    start(outbox, (entry) => Promise.resolve(other.push(...bodies(entry))));
    worker.resume();
    await waitFor("the write after resume", () => written.length + other.length === 2);
    expect(written).toEqual(["before", "while paused"]);

    await worker.close(2000);
    await add(outbox, ISSUE, "after close");
    await waitFor("the other worker writes, without waiting for the lease to run out", () => other.length === 1, 2500);
    expect(other).toEqual(["after close"]);
  });

  it("an entry queued for later costs no take before it is due; one due now, queued meanwhile, is written at once", async () => {
    const outbox = fresh();
    const takes: Array<{ kind: string; at: number }> = [];
    const take = outbox.take.bind(outbox);
    outbox.take = async (writer, now) => {
      const taken = await take(writer, now);
      takes.push({ kind: taken.kind, at: Date.now() });
      return taken;
    };
    const written: Array<{ body: string; at: number }> = [];
    const worker = startFeedbackWorker(
      { outbox, log, write: (entry) => Promise.resolve(written.push(...bodies(entry).map((body) => ({ body, at: Date.now() })))) },
      redis,
      { ...TIMING, idleMs: 5000 },
    );
    workers.push(worker);
    await waitFor("the writer's first look", () => takes.length > 0);

    const queuedAt = Date.now();
    await add(outbox, ISSUE, "later", { delayMs: 600 });
    await waitFor("the delayed entry written", () => written.length === 1, 3000);
    expect(written[0]!.at - queuedAt).toBeGreaterThanOrEqual(550);
    expect(takes.filter((t) => t.at >= queuedAt && t.kind === "idle")).toEqual([]);

    const secondAt = Date.now();
    await add(outbox, ISSUE, "much later", { delayMs: 60_000 });
    await add(outbox, OTHER, "now");
    await waitFor("the entry due now written", () => written.length === 2, 1000);
    expect(written[1]!.body).toBe("now");
    expect(written[1]!.at - secondAt).toBeLessThan(2500);
  });
});
