import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SpawnQueue, type SpawnTask, type TakenSpawn } from "../../../src/jobs/spawnQueue.js";

/** Every take looks for stalled jobs here (the worker does every few seconds). */
const LOOK = { mostStalls: 10, lookForStalled: true };
const DATA = { installationId: 5, repo: "acme/widgets", issue: 7, trigger: { type: "resume", gateId: "42" }, receivedAt: 1 };

/** The task a take found; fails the test when it found none. */
function taskOf(taken: TakenSpawn): SpawnTask {
  if (taken.kind !== "job") throw new Error(`expected a job, got ${JSON.stringify(taken)}`);
  return taken.task;
}

describe("the spawn queue", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await redis.quit();
  });
  const fresh = () => new SpawnQueue(redis, `spawns-${randomUUID().slice(0, 8)}`);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("queues a job id once a day, hands it out with its data, and keeps its outcome once it ended", async () => {
    const queue = fresh();
    expect(await queue.add("resume-42", DATA, 3)).toBe(true);
    expect(await queue.add("resume-42", { ...DATA, issue: 8 }, 3)).toBe(false);
    expect(await queue.state("resume-42")).toEqual({ kind: "queued" });
    const task = taskOf(await queue.take("w1", 5000, LOOK));
    expect(task).toMatchObject({ id: "resume-42", attempts: 3, attemptsMade: 0, attemptsStarted: 1, token: "w1" });
    expect(JSON.parse(task.data)).toEqual(DATA);
    expect(Math.abs(task.createdAt - Date.now())).toBeLessThan(5000);
    expect(await queue.getJobCounts("waiting", "active", "delayed", "failed")).toEqual({ waiting: 0, active: 1, delayed: 0, failed: 0 });
    expect(await queue.complete(task, "round 1: exit 0 after 5 ms")).toBe(true);
    expect(await queue.state("resume-42")).toEqual({ kind: "ended", outcome: "round 1: exit 0 after 5 ms" });
    expect(await queue.unfinished()).toBe(0);
    expect(await queue.add("resume-42", DATA, 3)).toBe(false);
    expect(await queue.state("resume-43")).toEqual({ kind: "unknown" });
  });

  it("hands jobs out in the order queued, says whether more wait, and when nothing is due", async () => {
    const queue = fresh();
    for (const id of ["a", "b", "c"]) await queue.add(id, DATA, 1);
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push(await queue.take(`w${i}`, 5000, LOOK));
    expect(taken.map((t) => [taskOf(t).id, t.more])).toEqual([
      ["a", true],
      ["b", true],
      ["c", false],
    ]);
    expect(await queue.take("w3", 5000, LOOK)).toEqual({ kind: "idle", more: false, dueInMs: undefined, stalled: [] });
  });

  it("retries a failed job after its backoff with the failure counted, and puts a stopped one back without counting it", async () => {
    const queue = fresh();
    await queue.add("j", DATA, 3);
    const first = taskOf(await queue.take("w1", 5000, LOOK));
    expect(await queue.retry(first, 60_000, true)).toBe(true);
    expect(await queue.getJobCounts("waiting", "active", "delayed")).toEqual({ waiting: 0, active: 0, delayed: 1 });
    const waiting = await queue.take("w2", 5000, LOOK);
    expect(waiting.kind === "idle" && waiting.dueInMs).toBeGreaterThan(55_000);
    expect(await queue.unfinished()).toBe(1);

    const other = fresh();
    await other.add("j", DATA, 3);
    const run1 = taskOf(await other.take("w1", 5000, LOOK));
    expect(await other.retry(run1, 0, true)).toBe(true);
    const run2 = taskOf(await other.take("w2", 5000, LOOK));
    expect(run2).toMatchObject({ attemptsMade: 1, attemptsStarted: 2 });
    expect(await other.retry(run2, 0, false)).toBe(true);
    expect(taskOf(await other.take("w3", 5000, LOOK))).toMatchObject({ attemptsMade: 1, attemptsStarted: 3 });
  });

  it("takes a job whose lock ran out back from its worker, which can then neither extend, end nor retry it", async () => {
    const queue = fresh();
    await queue.add("j", DATA, 3);
    const dead = taskOf(await queue.take("dead", 50, LOOK));
    await pause(100);
    const taken = await queue.take("alive", 5000, LOOK);
    expect(taken.stalled).toEqual([{ id: "j", failed: false }]);
    expect(taskOf(taken)).toMatchObject({ id: "j", attemptsStarted: 2, attemptsMade: 0 });
    expect(await queue.extendLocks([dead], 5000)).toEqual(["j"]);
    expect(await queue.complete(dead, "late")).toBe(false);
    expect(await queue.retry(dead, 0, true)).toBe(false);
    expect(await queue.fail(dead, "late")).toBe(false);
    expect(await queue.extendLocks([taskOf(taken)], 5000)).toEqual([]);
    expect(await queue.state("j")).toEqual({ kind: "queued" });
  });

  it("puts a stalled job back only when asked to look for one", async () => {
    const queue = fresh();
    await queue.add("j", DATA, 3);
    await queue.take("dead", 50, LOOK);
    await pause(100);
    expect(await queue.take("busy", 5000, { mostStalls: 10, lookForStalled: false })).toMatchObject({ kind: "idle", stalled: [] });
    expect(taskOf(await queue.take("looking", 5000, LOOK))).toMatchObject({ id: "j", attemptsStarted: 2 });
  });

  it("counts a lock that ran out as lost even before another worker took the job", async () => {
    const queue = fresh();
    await queue.add("j", DATA, 3);
    const slow = taskOf(await queue.take("slow", 50, LOOK));
    await pause(100);
    expect(await queue.extendLocks([slow], 5000)).toEqual(["j"]);
  });

  it("fails a job that stalled more often than allowed, and a job failed for good, into the failed stream", async () => {
    const queue = fresh();
    await queue.add("crasher", DATA, 3);
    taskOf(await queue.take("w1", 30, { mostStalls: 1, lookForStalled: true }));
    await pause(60);
    const again = await queue.take("w2", 30, { mostStalls: 1, lookForStalled: true });
    expect(again.stalled).toEqual([{ id: "crasher", failed: false }]);
    await pause(60);
    const last = await queue.take("w3", 30, { mostStalls: 1, lookForStalled: true });
    expect(last).toMatchObject({ kind: "idle", stalled: [{ id: "crasher", failed: true }] });
    expect(await queue.state("crasher")).toEqual({ kind: "failed" });

    await queue.add("broken", DATA, 2);
    const broken = taskOf(await queue.take("w4", 5000, { mostStalls: 1, lookForStalled: true }));
    expect(await queue.fail(broken, "SyntaxError: not JSON")).toBe(true);
    expect(await queue.state("broken")).toEqual({ kind: "failed" });
    expect(await queue.getJobCounts("waiting", "active", "delayed", "failed")).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 2 });
    const failed = await redis.xrange(queue.failedKey(), "-", "+");
    const fields = failed.map(([, list]) => Object.fromEntries(list.flatMap((v, i, all) => (i % 2 === 0 ? [[v, all[i + 1]]] : []))));
    expect(fields.map((f) => [f.id, f.error, f.made])).toEqual([
      ["crasher", expect.stringContaining("stalled"), "0"],
      ["broken", "SyntaxError: not JSON", "1"],
    ]);
    expect(JSON.parse(fields[1]!.data!)).toEqual(DATA);
    expect(await redis.exists(queue.jobKey("broken"), queue.jobKey("crasher"))).toBe(0);
  });

  it("skips a waiting id whose record Redis lost, and wakes a waiting worker when a job is queued", async () => {
    const queue = fresh();
    await queue.add("lost", DATA, 1);
    await queue.add("kept", DATA, 1);
    await redis.del(queue.jobKey("lost"));
    expect(taskOf(await queue.take("w", 5000, LOOK)).id).toBe("kept");

    const blocking = redis.duplicate();
    try {
      await redis.del(queue.wakeKey());
      const started = Date.now();
      const woken = queue.waitForWork(blocking, 10_000);
      await pause(50);
      await queue.add("next", DATA, 1);
      await woken;
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      blocking.disconnect();
    }
  });
});
