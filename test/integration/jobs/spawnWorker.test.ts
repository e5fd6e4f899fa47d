import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { SpawnQueue, type SpawnTask } from "../../../src/jobs/spawnQueue.js";
import { LockLost, ShutdownInterrupt, startSpawnWorker, type SpawnTiming, type SpawnWorker } from "../../../src/jobs/spawnWorker.js";
import { waitFor } from "../../support/harness.js";

const DATA = { installationId: 5, repo: "acme/widgets", issue: 7, trigger: { type: "resume", gateId: "42" }, receivedAt: 1 };

/** Fast clocks: locks renewed every 50 ms, retries 5, 10, 20 … ms apart. A lock's length only matters to a worker that dies. */
const TIMING: SpawnTiming = { lockMs: 5000, renewEveryMs: 50, backoffMs: 5, idleMs: 200, stalledEveryMs: 100, mostStalls: 10 };

type Run = (task: SpawnTask, signal: AbortSignal) => Promise<string>;

/** Resolves with the signal's reason once it aborts. */
const aborted = (signal: AbortSignal) => new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

describe("the spawn worker", () => {
  let redis: Redis;
  let workers: SpawnWorker[] = [];
  const warnings: Array<Record<string, unknown>> = [];
  const log = { warn: (fields: Record<string, unknown>) => void warnings.push(fields), error: () => undefined, debug: () => undefined };
  beforeAll(() => {
    redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: null });
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.close(0, 2000)));
    workers = [];
    warnings.length = 0;
  });
  afterAll(async () => {
    await redis.quit();
  });

  const fresh = () => new SpawnQueue(redis, `spawns-${randomUUID().slice(0, 8)}`);
  const start = (queue: SpawnQueue, run: Run, concurrency = 1, timing: SpawnTiming = TIMING) => {
    const worker = startSpawnWorker({ queue, log, run }, redis, concurrency, timing);
    workers.push(worker);
    return worker;
  };
  const ended = async (queue: SpawnQueue, id: string) => {
    const state = await queue.state(id);
    return state.kind === "ended" ? state.outcome : undefined;
  };

  it("runs up to `concurrency` jobs at once, in the order queued, and keeps each one's outcome", async () => {
    const queue = fresh();
    const order: string[] = [];
    let running = 0;
    let most = 0;
    start(
      queue,
      async (task) => {
        most = Math.max(most, ++running);
        order.push(task.id);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running--;
        return `ran ${task.id}`;
      },
      2,
    );
    for (const id of ["a", "b", "c", "d", "e"]) await queue.add(id, DATA, 1);
    for (const id of ["a", "b", "c", "d", "e"]) expect(await waitFor(`job ${id} done`, () => ended(queue, id))).toBe(`ran ${id}`);
    expect(most).toBe(2);
    expect(order).toEqual(["a", "b", "c", "d", "e"]);
    expect(await queue.unfinished()).toBe(0);
  });

  it("retries a failing job with backoff until its attempts are used, then fails it with the last error", async () => {
    const queue = fresh();
    const seen: Array<[number, number]> = [];
    start(queue, async (task) => {
      seen.push([task.attemptsMade, task.attemptsStarted]);
      throw new Error(`agent failed (${task.attemptsMade})`);
    });
    await queue.add("flaky", DATA, 3);
    await waitFor("the job failed", async () => (await queue.state("flaky")).kind === "failed");
    expect(seen).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(warnings.map((w) => w.attempt)).toEqual([1, 2, 3]);
    const [[, fields]] = (await redis.xrange(queue.failedKey(), "-", "+")) as [[string, string[]]];
    expect(fields[fields.indexOf("error") + 1]).toBe("agent failed (2)");
  });

  it("fails at once a job whose data does not parse", async () => {
    const queue = fresh();
    let runs = 0;
    start(queue, async (task) => {
      runs++;
      return JSON.parse(task.data.slice(1)) as string;
    });
    await queue.add("garbled", DATA, 5);
    await waitFor("the job failed", async () => (await queue.getJobCounts("failed")).failed === 1);
    expect(runs).toBe(1);
  });

  it("stops the agent of a job whose lock it lost, and neither ends nor retries that job", async () => {
    const queue = fresh();
    const reasons: unknown[] = [];
    start(queue, async (_task, signal) => {
      reasons.push(await aborted(signal));
      throw new Error("stopped");
    });
    await queue.add("taken-over", DATA, 3);
    await waitFor("the job running", async () => (await redis.hget(queue.jobKey("taken-over"), "lock")) !== null);
    // Another worker took the job over (this one was thought dead): its token is on the job now.
    await redis.hset(queue.jobKey("taken-over"), "lock", "another-worker");
    await waitFor("the agent stopped", () => reasons.length === 1);
    expect(reasons[0]).toBeInstanceOf(LockLost);
    await waitFor("the worker free again", async () => (await queue.getJobCounts("active")).active === 1 && warnings.length === 1);
    expect(warnings[0]).toMatchObject({ job: "taken-over" });
    expect(await redis.hmget(queue.jobKey("taken-over"), "lock", "made")).toEqual(["another-worker", "0"]);
    expect(await queue.state("taken-over")).toEqual({ kind: "queued" });
  });

  it("at a close, gives running agents their grace, then stops them and puts their jobs back without using an attempt", async () => {
    const queue = fresh();
    const reasons: unknown[] = [];
    const worker = start(queue, async (_task, signal) => {
      reasons.push(await aborted(signal));
      return "stopped";
    });
    await queue.add("deploy", DATA, 1);
    await waitFor("the job running", async () => (await queue.getJobCounts("active")).active === 1);
    const closing = Date.now();
    await worker.close(100, 5000);
    expect(Date.now() - closing).toBeGreaterThanOrEqual(95);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(ShutdownInterrupt);
    expect(await queue.getJobCounts("waiting", "active", "delayed")).toEqual({ waiting: 0, active: 0, delayed: 1 });
    // The next worker runs it, its one attempt still unused.
    const next: SpawnTask[] = [];
    start(queue, async (task) => {
      next.push(task);
      return "ran";
    });
    expect(await waitFor("the job run again", () => ended(queue, "deploy"))).toBe("ran");
    expect(next[0]).toMatchObject({ attemptsMade: 0, attemptsStarted: 2 });
  });

  it("runs again the job of a worker that died once its lock ran out", async () => {
    const queue = fresh();
    await queue.add("orphan", DATA, 1);
    // A worker took it and died: nobody renews its lock.
    await queue.take("dead-worker", 100, { mostStalls: 10, lookForStalled: true });
    const runs: SpawnTask[] = [];
    start(queue, async (task) => {
      runs.push(task);
      return "ran";
    });
    expect(await waitFor("the orphan run", () => ended(queue, "orphan"))).toBe("ran");
    expect(runs.map((t) => t.attemptsStarted)).toEqual([2]);
    expect(warnings).toContainEqual(expect.objectContaining({ job: "orphan" }));
  });

  it("renews the locks of a long run, so another worker never takes its job", async () => {
    const queue = fresh();
    const runs: string[] = [];
    let release: () => void = () => undefined;
    const run: Run = async (task) => {
      runs.push(task.id);
      await new Promise<void>((resolve) => (release = resolve));
      return "long";
    };
    const timing = { ...TIMING, lockMs: 1000 };
    start(queue, run, 1, timing);
    start(queue, run, 1, timing);
    await queue.add("long", DATA, 1);
    await waitFor("the job running", () => runs.length === 1);
    const first = Number(await redis.zscore(queue.activeKey(), "long"));
    // Renewed past twice its length: without renewals the other worker would have taken it by then.
    await waitFor("the lock renewed past two lock lengths", async () => Number(await redis.zscore(queue.activeKey(), "long")) > first + 2000, 10_000);
    const lock = await redis.hget(queue.jobKey("long"), "lock");
    release();
    expect(await waitFor("the run done", () => ended(queue, "long"))).toBe("long");
    expect(lock).not.toBeNull();
    expect(runs).toEqual(["long"]);
  });
});
