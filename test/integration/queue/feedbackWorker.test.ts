import { randomUUID } from "node:crypto";
import { Worker } from "bullmq";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { QUEUES } from "../../../src/queueNames.js";
import { WritesDeferred } from "../../../src/status/budgetedWriter.js";
import type { LaneEntry } from "../../../src/status/feedbackLanes.js";
import { FeedbackQueue } from "../../../src/queue/feedbackQueue.js";
import { startFeedbackWorker, type FeedbackWorker } from "../../../src/queue/feedbackWorker.js";
import { waitFor } from "../../support/harness.js";
import { workerRig } from "../../support/workerRig.js";

const ISSUE = { installationId: 5, repo: "acme/widgets", issue: 7 };
const OTHER = { ...ISSUE, issue: 8 };

/** Fast clocks: locks renewed every 100 ms and taken back 300 ms after a worker stopped renewing them. */
const TIMING = { lockMs: 300, renewEveryMs: 100, stalledEveryMs: 100, mostStalls: 10 };

type Write = (entry: LaneEntry, saveProgress: (done: number) => Promise<void>) => Promise<number>;

/** The comments' bodies an entry holds. */
const bodies = (entry: LaneEntry) => (JSON.parse(entry.ops) as Array<{ body: string }>).map((op) => op.body);

describe("the feedback worker", () => {
  const rig = workerRig<FeedbackWorker, FeedbackQueue>((worker) => worker.close(2000));
  const { workers, queues, warnings, log } = rig;

  /** A feedback queue of its own, retries 5, 10, 20 … ms apart. */
  const fresh = (prefix = `feedback-${randomUUID().slice(0, 8)}`) => {
    const queue = new FeedbackQueue(rig.redis, prefix, 5);
    queues.push(queue);
    return queue;
  };
  const start = (queue: FeedbackQueue, write: Write) => {
    const worker = startFeedbackWorker({ lanes: queue.lanes, queue, log, write }, rig.redis, queue.lanes.prefix, TIMING);
    workers.push(worker);
    return worker;
  };
  const add = (queue: FeedbackQueue, target: typeof ISSUE, body: string, options?: { delayMs?: number }) =>
    queue.add(target, [{ type: "comment", body }], body, options);
  const failedJobs = async (queue: FeedbackQueue) => (await queue.queue.getFailed()).map((job) => job.data);

  it("two workers write one entry at a time, each issue's in the order queued", async () => {
    const queue = fresh();
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
    start(queue, write);
    start(fresh(queue.lanes.prefix), write);
    for (let i = 0; i < 10; i++) {
      await add(queue, ISSUE, `a${i}`);
      await add(queue, OTHER, `b${i}`);
    }
    await waitFor("every entry written", () => written.length === 20);
    expect(most).toBe(1);
    expect(written.filter((b) => b.startsWith("a"))).toEqual(Array.from({ length: 10 }, (_, i) => `a${i}`));
    expect(written.filter((b) => b.startsWith("b"))).toEqual(Array.from({ length: 10 }, (_, i) => `b${i}`));
    expect(await queue.unfinished()).toBe(0);
    expect(await queue.queue.getGlobalConcurrency()).toBe(1);
  });

  it("what is queued while its lane's job writes is written too, and a lane emptied asks for a new job", async () => {
    const queue = fresh();
    const written: string[] = [];
    start(queue, async (entry) => {
      const [body] = bodies(entry);
      if (body === "first") await add(queue, ISSUE, "queued meanwhile");
      written.push(body!);
      return 1;
    });
    await add(queue, ISSUE, "first");
    await waitFor("both written", () => written.length === 2);
    await waitFor("the lane's job done", async () => (await queue.queue.getCompletedCount()) >= 1);
    await add(queue, ISSUE, "later");
    await waitFor("the later one written", () => written.length === 3);
    expect(written).toEqual(["first", "queued meanwhile", "later"]);
    expect(await queue.unfinished()).toBe(0);
  });

  it("a busy issue takes turns: after ten of its writes, another issue's queued meanwhile goes first", async () => {
    const queue = fresh();
    const written: string[] = [];
    for (let i = 0; i < 15; i++) await add(queue, ISSUE, `a${i}`);
    start(queue, async (entry) => {
      const [body] = bodies(entry);
      if (body === "a0") await add(queue, OTHER, "b");
      written.push(body!);
      return 1;
    });
    await waitFor("every entry written", () => written.length === 16);
    expect(written.indexOf("b")).toBe(10);
    expect(written.filter((b) => b.startsWith("a"))).toEqual(Array.from({ length: 15 }, (_, i) => `a${i}`));
  });

  it("a write the budget puts off waits without using a try, and its issue's next write after it", async () => {
    const queue = fresh();
    const written: string[] = [];
    let deferrals = 0;
    // Both queued before the worker starts: one job, whatever the machine's pace.
    const queuedAt = Date.now();
    await add(queue, ISSUE, "first");
    await add(queue, ISSUE, "second");
    start(queue, (entry) => {
      if (bodies(entry)[0] === "first" && deferrals++ < 2) return Promise.reject(new WritesDeferred("the write budget per minute is spent", 100));
      written.push(...bodies(entry));
      return Promise.resolve(1);
    });
    await waitFor("both written", () => written.length === 2);
    expect(written).toEqual(["first", "second"]);
    expect(Date.now() - queuedAt).toBeGreaterThanOrEqual(200);
    // The job ends just after its last write.
    await waitFor("the lane's job completed", async () => (await queue.queue.getCompletedCount()) === 1);
    const [job] = await queue.queue.getCompleted();
    expect(job?.attemptsMade).toBe(1);
    expect(job?.returnvalue).toEqual({ lane: "acme/widgets#7", entries: 2, writes: 2 });
    expect(warnings).toEqual([]);
  });

  it("tries a failing entry eight times, then fails the job with it; the issue's next write goes on in a job of its own", async () => {
    const queue = fresh();
    const written: string[] = [];
    start(queue, (entry) => {
      if (bodies(entry)[0] === "doomed") return Promise.reject(new Error("GitHub said 502"));
      written.push(...bodies(entry));
      return Promise.resolve(1);
    });
    await add(queue, ISSUE, "doomed");
    await add(queue, ISSUE, "after");
    await waitFor("the next write", () => written.length === 1, 10_000);
    expect(written).toEqual(["after"]);
    expect(warnings.filter((w) => w.entry).map((w) => w.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await failedJobs(queue)).toEqual([
      expect.objectContaining({
        lane: "acme/widgets#7",
        failed: { id: "acme/widgets#7-doomed", ops: expect.stringContaining("doomed"), error: "GitHub said 502" },
      }),
    ]);
    // A withdrawal takes the text out of the failed job, which keeps what it gave up on.
    expect(await queue.remove(ISSUE, "doomed")).toBe(1);
    expect(await failedJobs(queue)).toEqual([expect.objectContaining({ failed: { id: "acme/widgets#7-doomed", error: "GitHub said 502" } })]);
    expect(await queue.unfinished()).toBe(0);
  });

  it("an entry whose ops do not parse fails its job at once", async () => {
    const queue = fresh();
    start(queue, () => Promise.reject(new ZodError([])));
    await add(queue, ISSUE, "garbled");
    await waitFor("the job failed", async () => (await queue.queue.getFailedCount()) === 1);
    expect(warnings.filter((w) => w.entry).map((w) => w.attempt)).toEqual([1]);
    expect(await queue.unfinished()).toBe(0);
  });

  it("a retry goes on from the op after the last one saved: a comment is not posted twice", async () => {
    const queue = fresh();
    const posted: string[] = [];
    let crashed = false;
    start(queue, async (entry, saveProgress) => {
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
    await queue.add(
      ISSUE,
      ["one", "two", "three"].map((body) => ({ type: "comment" as const, body })),
      "three",
    );
    await waitFor("the entry done", async () => posted.length >= 3 && (await queue.unfinished()) === 0);
    expect(posted).toEqual(["one", "two", "three"]);
  });

  it("a job whose worker died is taken up by another once its lock runs out", async () => {
    const queue = fresh();
    const { prefix } = queue.lanes;
    // A worker that takes the job and dies holding it: it never ends it, nor renews its lock. (Its
    // stalled checks as often as the other's: BullMQ runs one check per interval across workers.)
    let taken = false;
    const dying = new Worker(
      QUEUES.feedback,
      async () => {
        taken = true;
        await new Promise(() => undefined);
      },
      { connection: rig.redis, prefix, lockDuration: TIMING.lockMs, lockRenewTime: 60_000, stalledInterval: TIMING.stalledEveryMs },
    );
    await add(queue, ISSUE, "orphan");
    await waitFor("the dying worker holds the job", () => taken);
    void dying.close(true);
    const written: string[] = [];
    const takenAt = Date.now();
    start(queue, (entry) => Promise.resolve(written.push(...bodies(entry))));
    await waitFor("the write", () => written.length === 1, 5000);
    expect(written).toEqual(["orphan"]);
    expect(Date.now() - takenAt).toBeGreaterThanOrEqual(100);
    expect(warnings.some((w) => w.job !== undefined && !w.entry)).toBe(true); // the stalled job, logged
  });

  it("a paused worker takes nothing until resumed", async () => {
    const queue = fresh();
    const written: string[] = [];
    const worker = start(queue, (entry) => Promise.resolve(written.push(...bodies(entry))));
    await add(queue, ISSUE, "before");
    await waitFor("the first write", () => written.length === 1);
    await worker.pause();
    await add(queue, ISSUE, "while paused");
    await waitFor("the job waiting", async () => (await queue.getJobCounts("waiting")).waiting === 1);
    expect(written).toEqual(["before"]);
    worker.resume();
    await waitFor("the write after resume", () => written.length === 2);
    expect(written).toEqual(["before", "while paused"]);
  });

  it("an entry queued for later holds its lane until due; another issue's, due now, is written at once", async () => {
    const queue = fresh();
    const written: Array<{ body: string; at: number }> = [];
    start(queue, (entry) => Promise.resolve(written.push(...bodies(entry).map((body) => ({ body, at: Date.now() })))));
    const queuedAt = Date.now();
    await add(queue, ISSUE, "later", { delayMs: 600 });
    await add(queue, ISSUE, "behind it");
    await add(queue, OTHER, "now");
    await waitFor("the one due now written", () => written.length === 1, 5000);
    expect(written[0]!.body).toBe("now");
    await waitFor("the delayed lane written", () => written.length === 3, 3000);
    expect(written.map((w) => w.body)).toEqual(["now", "later", "behind it"]);
    expect(written[1]!.at - queuedAt).toBeGreaterThanOrEqual(550);
  });

  it("at start a worker asks for a job for every lane with entries and none (its job lost to a crash)", async () => {
    const queue = fresh();
    const lane = queue.lanes.laneOf(ISSUE);
    await queue.lanes.add(ISSUE, lane, [{ type: "comment", body: "stranded" }], "stranded");
    expect(await queue.queue.count()).toBe(0);
    const written: string[] = [];
    start(queue, (entry) => Promise.resolve(written.push(...bodies(entry))));
    await waitFor("the stranded write", () => written.length === 1);
    expect(written).toEqual(["stranded"]);
  });
});
