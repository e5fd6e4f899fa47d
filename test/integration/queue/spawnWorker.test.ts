import { randomUUID } from "node:crypto";
import { Worker } from "bullmq";
import { describe, expect, it } from "vitest";
import { QUEUES } from "../../../src/queueNames.js";
import { SpawnJobSchema } from "../../../src/payloads.js";
import { openSpawnQueue, spawnJobOptions, spawnState, type SpawnQueue, type SpawnTask } from "../../../src/queue/spawnQueue.js";
import type { JobTiming } from "../../../src/queue/jobLocks.js";
import { LockLost, ShutdownInterrupt, startSpawnWorker, type SpawnWorker } from "../../../src/queue/spawnWorker.js";
import { waitFor } from "../../support/harness.js";
import { workerRig } from "../../support/workerRig.js";

const DATA = { installationId: 5, repo: "acme/widgets", issue: 7, trigger: { type: "resume", gateId: "42" }, receivedAt: 1 } as const;

/** Fast clocks: locks renewed every 50 ms, stalled jobs looked for every 100 ms. A lock's length only matters to a worker that dies. */
const TIMING: JobTiming = { lockMs: 5000, renewEveryMs: 50, stalledEveryMs: 100, mostStalls: 10 };

type Run = (task: SpawnTask, signal: AbortSignal) => Promise<string>;

/** Resolves with the signal's reason once it aborts. */
const aborted = (signal: AbortSignal) => new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

describe("the spawn worker", () => {
  const rig = workerRig<SpawnWorker, SpawnQueue>((worker) => worker.close(0, 2000));
  const { workers, queues, warnings, log } = rig;

  const fresh = () => {
    const queue = openSpawnQueue(rig.redis, `spawns-${randomUUID().slice(0, 8)}`);
    queues.push(queue);
    return queue;
  };
  const prefixOf = (queue: SpawnQueue) => queue.opts.prefix ?? "";
  const add = (queue: SpawnQueue, id: string, attempts: number, data: unknown = DATA) => queue.add("round", data as never, spawnJobOptions(id, attempts, 5));
  const start = (queue: SpawnQueue, run: Run, concurrency = 1, timing: JobTiming = TIMING) => {
    const worker = startSpawnWorker({ log, run }, rig.redis, prefixOf(queue), concurrency, timing);
    workers.push(worker);
    return worker;
  };
  const ended = async (queue: SpawnQueue, id: string) => {
    const state = await spawnState(queue, id);
    return state.kind === "ended" ? state.outcome : undefined;
  };
  const lockOf = (queue: SpawnQueue, id: string) => rig.redis.get(queue.toKey(`${id}:lock`));

  it("runs up to `concurrency` jobs at once, in the order queued, keeps each one's outcome, and refuses an id queued again", async () => {
    const queue = fresh();
    const order: string[] = [];
    let running = 0;
    let most = 0;
    for (const id of ["a", "b", "c", "d", "e"]) await add(queue, id, 1);
    await add(queue, "a", 1, { ...DATA, issue: 8 });
    start(
      queue,
      async (task) => {
        most = Math.max(most, ++running);
        order.push(`${task.id}#${SpawnJobSchema.parse(task.data).issue}`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running--;
        return `ran ${task.id}`;
      },
      2,
    );
    for (const id of ["a", "b", "c", "d", "e"]) expect(await waitFor(`job ${id} done`, () => ended(queue, id))).toBe(`ran ${id}`);
    // Completed, its id still refuses the same answer queued again.
    await add(queue, "a", 1, { ...DATA, issue: 9 });
    expect(await queue.getJobCounts("waiting", "active", "delayed")).toMatchObject({ waiting: 0, active: 0, delayed: 0 });
    expect(most).toBe(2);
    expect(order).toEqual(["a#7", "b#7", "c#7", "d#7", "e#7"]);
    expect(await spawnState(queue, "never-queued")).toEqual({ kind: "unknown" });
  });

  it("retries a failing job with backoff until its attempts are used, then fails it with the last error", async () => {
    const queue = fresh();
    const seen: Array<[number, number]> = [];
    start(queue, async (task) => {
      seen.push([task.attemptsMade, task.attemptsStarted]);
      throw new Error(`agent failed (${task.attemptsMade})`);
    });
    await add(queue, "flaky", 3);
    await waitFor("the job failed", async () => (await spawnState(queue, "flaky")).kind === "failed");
    expect(seen).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    await waitFor("three failures logged", () => warnings.length === 3);
    expect(warnings.map((w) => w.attempt)).toEqual([1, 2, 3]);
    expect((await queue.getJob("flaky"))?.failedReason).toBe("agent failed (2)");
  });

  it("fails at once a job whose data does not parse", async () => {
    const queue = fresh();
    let runs = 0;
    start(queue, async (task) => {
      runs++;
      return SpawnJobSchema.parse(task.data).repo;
    });
    await add(queue, "garbled", 5, { ...DATA, issue: "seven" });
    await waitFor("the job failed", async () => (await queue.getJobCounts("failed")).failed === 1);
    expect(runs).toBe(1);
    expect((await queue.getJob("garbled"))?.attemptsMade).toBe(1);
  });

  it("stops the agent of a job whose lock it lost, and neither ends nor retries that job", async () => {
    const queue = fresh();
    const reasons: unknown[] = [];
    start(queue, async (_task, signal) => {
      reasons.push(await aborted(signal));
      throw new Error("stopped");
    });
    await add(queue, "taken-over", 3);
    await waitFor("the job running", async () => (await lockOf(queue, "taken-over")) !== null);
    // Another worker took the job over (this one was thought dead): its token is on the job now.
    await rig.redis.set(queue.toKey("taken-over:lock"), "another-worker", "PX", 60_000);
    await waitFor("the agent stopped", () => reasons.length === 1);
    expect(reasons[0]).toBeInstanceOf(LockLost);
    expect(warnings[0]).toMatchObject({ job: "taken-over" });
    await waitFor("the worker done with it", async () => (await queue.getJobCounts("active")).active === 1 && warnings.length >= 2);
    const job = await queue.getJob("taken-over");
    expect([await lockOf(queue, "taken-over"), job?.attemptsMade, await job?.getState()]).toEqual(["another-worker", 0, "active"]);
  });

  it("at a close, gives running agents their grace, then stops them and puts their jobs back without using an attempt", async () => {
    const queue = fresh();
    const reasons: unknown[] = [];
    const worker = start(queue, async (_task, signal) => {
      reasons.push(await aborted(signal));
      return "stopped";
    });
    await add(queue, "deploy", 1);
    await waitFor("the job running", async () => (await queue.getJobCounts("active")).active === 1);
    const closing = Date.now();
    await worker.close(100, 5000);
    expect(Date.now() - closing).toBeGreaterThanOrEqual(95);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(ShutdownInterrupt);
    expect(await queue.getJobCounts("waiting", "active", "delayed")).toMatchObject({ waiting: 0, active: 0, delayed: 1 });
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
    await add(queue, "orphan", 1);
    // A worker took it and died: nobody renews its 100 ms lock.
    const dead = new Worker(QUEUES.spawn, null, { connection: rig.redis, prefix: prefixOf(queue), lockDuration: 100 });
    expect((await dead.getNextJob("dead-worker"))?.id).toBe("orphan");
    await dead.close(true);
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
    await add(queue, "long", 1);
    await waitFor("the job running", () => runs.length === 1);
    const startedAt = Date.now();
    const lock = await lockOf(queue, "long");
    expect(lock).not.toBeNull();
    // Still held under the same lock past two lock lengths: without renewals it would have run out by then.
    await waitFor("the lock held past two lock lengths", async () => Date.now() - startedAt > 2500 && (await lockOf(queue, "long")) === lock, 10_000);
    release();
    expect(await waitFor("the run done", () => ended(queue, "long"))).toBe("long");
    expect(runs).toEqual(["long"]);
  });
});
