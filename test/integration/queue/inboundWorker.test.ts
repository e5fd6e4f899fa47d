import { randomUUID } from "node:crypto";
import { Worker } from "bullmq";
import { describe, expect, it } from "vitest";
import {
  deliveryJobOptions,
  deliveryOutcomes,
  deliveryRecorded,
  forgetDelivery,
  openInboundQueue,
  type InboundQueue,
} from "../../../src/queue/inboundQueue.js";
import { startInboundWorker, type InboundWorker } from "../../../src/queue/inboundWorker.js";
import type { JobTiming } from "../../../src/queue/jobLocks.js";
import { jobIds, QUEUES } from "../../../src/queueNames.js";
import type { InboundEvent } from "../../../src/payloads.js";
import { common } from "../../support/gateFakes.js";
import { waitFor } from "../../support/harness.js";
import { workerRig } from "../../support/workerRig.js";

const closed = (deliveryId: string): InboundEvent => ({ kind: "closed", ...common(), deliveryId });

/** Fast clocks: locks renewed every 50 ms, stalled deliveries looked for every 100 ms. */
const TIMING: JobTiming = { lockMs: 5000, renewEveryMs: 50, stalledEveryMs: 100, mostStalls: 10 };

describe("the inbound worker", () => {
  const rig = workerRig<InboundWorker, InboundQueue>((worker) => worker.close(2000));
  const { workers, queues, warnings, log } = rig;

  const fresh = () => {
    const queue = openInboundQueue(rig.redis, `inbound-${randomUUID().slice(0, 8)}`);
    queues.push(queue);
    return queue;
  };
  /** Queued as the app queues a delivery, its retries 10, 20, 40, 80 ms apart. */
  const add = (queue: InboundQueue, event: InboundEvent | Record<string, unknown>) =>
    queue.add("closed", event as InboundEvent, deliveryJobOptions(String(event.deliveryId), 10));
  const start = (queue: InboundQueue, handle: (event: InboundEvent) => Promise<string>) => {
    const worker = startInboundWorker({ log, handle }, rig.redis, queue.opts.prefix ?? "", TIMING);
    workers.push(worker);
    return worker;
  };

  it("handles deliveries in parallel, records each one's outcome, and refuses a redelivery", async () => {
    const queue = fresh();
    let running = 0;
    let most = 0;
    let handled = 0;
    start(queue, async (event) => {
      handled++;
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 50));
      running--;
      return `closed ${event.deliveryId}`;
    });
    for (let i = 0; i < 40; i++) await add(queue, closed(`d-${i}`));
    await waitFor("every delivery handled", async () => (await deliveryOutcomes(queue)).length === 40);
    await add(queue, closed("d-7"));
    expect(await deliveryRecorded(queue, "d-7")).toBe(true);
    expect(await deliveryRecorded(queue, "d-never")).toBe(false);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(32);
    expect(await queue.getJobCounts("waiting", "active", "delayed")).toMatchObject({ waiting: 0, active: 0, delayed: 0 });
    expect(handled).toBe(40);
    expect((await deliveryOutcomes(queue)).find((o) => o.delivery === "d-7")).toEqual({
      delivery: "d-7",
      kind: "closed",
      repo: "acme/widgets",
      issue: 7,
      outcome: "closed d-7",
    });
  });

  it("tries a failing delivery five times, then fails it with its last error", async () => {
    const queue = fresh();
    let tries = 0;
    start(queue, () => Promise.reject(new Error(`GitHub said 502 (${++tries})`)));
    await add(queue, closed("d-1"));
    await waitFor("the delivery failed", async () => (await queue.getJobCounts("failed")).failed === 1);
    expect(tries).toBe(5);
    await waitFor("five failures logged", () => warnings.length === 5);
    expect(warnings.map((w) => w.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect((await queue.getJob(jobIds.delivery("d-1")))?.failedReason).toBe("GitHub said 502 (5)");
    expect(await deliveryOutcomes(queue)).toEqual([]);
  });

  it("a delivery that succeeds on a retry is handled once", async () => {
    const queue = fresh();
    let tries = 0;
    start(queue, () => (++tries < 3 ? Promise.reject(new Error("Redis blinked")) : Promise.resolve("closed")));
    await add(queue, closed("d-1"));
    await waitFor("the delivery handled", async () => (await deliveryOutcomes(queue)).length === 1);
    expect(tries).toBe(3);
    expect(await queue.getJobCounts("failed")).toEqual({ failed: 0 });
  });

  it("fails an event that does not parse at once: no retry mends it", async () => {
    const queue = fresh();
    let tries = 0;
    start(queue, () => Promise.resolve(String(++tries)));
    await add(queue, { kind: "closed", deliveryId: "d-bad", repo: "../../x" });
    await waitFor("the delivery failed", async () => (await queue.getJobCounts("failed")).failed === 1);
    expect(tries).toBe(0);
    await waitFor("its failure logged", () => warnings.length === 1);
    expect((await queue.getJob(jobIds.delivery("d-bad")))?.attemptsMade).toBe(1);
  });

  it("a delivery withdrawn while it waits to be tried again is dropped, not tried again, and keeps no text", async () => {
    const queue = fresh();
    let tries = 0;
    start(queue, async () => {
      if (++tries === 1) expect(await forgetDelivery(queue, "d-1")).toBe(1); // as src/gates/withdrawals.ts does, while the first try runs
      throw new Error("fails once");
    });
    await add(queue, { ...closed("d-1"), issue: { ...common().issue, body: "the secret plan" } });
    await waitFor("the delivery dropped", async () => (await deliveryOutcomes(queue)).length === 1);
    expect((await deliveryOutcomes(queue))[0]).toMatchObject({
      delivery: "d-1",
      kind: "closed",
      repo: "acme/widgets",
      issue: 7,
      outcome: expect.stringMatching(/^dropped/),
    });
    expect(tries).toBe(1);
    expect(JSON.stringify((await queue.getJob(jobIds.delivery("d-1")))?.data)).not.toContain("secret");
    expect(await queue.getJobCounts("waiting", "active", "failed")).toMatchObject({ waiting: 0, active: 0, failed: 0 });
  });

  it("a withdrawal takes the text out of a handled or failed delivery too, and is refused for none", async () => {
    const queue = fresh();
    start(queue, async (event) => (event.deliveryId === "d-fails" ? Promise.reject(new Error("no")) : "closed"));
    const secret = (id: string) => ({ ...closed(id), issue: { ...common().issue, body: "the secret plan" } });
    await add(queue, secret("d-handled"));
    await add(queue, secret("d-fails"));
    await waitFor(
      "both ended",
      async () => (await queue.getJobCounts("completed", "failed")).completed === 1 && (await queue.getJobCounts("failed")).failed === 1,
    );
    expect(await forgetDelivery(queue, "d-handled")).toBe(1);
    expect(await forgetDelivery(queue, "d-fails")).toBe(1);
    expect(await forgetDelivery(queue, "d-never")).toBe(0);
    for (const id of ["d-handled", "d-fails"]) expect(JSON.stringify((await queue.getJob(jobIds.delivery(id)))?.data)).not.toContain("secret");
    expect((await deliveryOutcomes(queue)).map((o) => [o.delivery, o.outcome])).toEqual([["d-handled", "closed"]]);
  });

  it("takes over a delivery whose worker died once its lock ran out", async () => {
    const queue = fresh();
    await add(queue, closed("d-dead"));
    // A worker took it and died: nobody renews its 100 ms lock.
    const dead = new Worker(QUEUES.inbound, null, { connection: rig.redis, prefix: queue.opts.prefix, lockDuration: 100 });
    expect((await dead.getNextJob("dead-worker"))?.id).toBe(jobIds.delivery("d-dead"));
    await dead.close(true);
    const handled: string[] = [];
    start(queue, (event) => Promise.resolve(void handled.push(event.deliveryId)).then(() => "closed"));
    await waitFor("the dead worker's delivery taken over", async () => (await deliveryOutcomes(queue)).length === 1);
    expect(handled).toEqual(["d-dead"]);
    expect(warnings).toContainEqual(expect.objectContaining({ job: jobIds.delivery("d-dead") }));
  });

  it("close lets the delivery being handled finish", async () => {
    const queue = fresh();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const worker = start(queue, async () => {
      started = true;
      await slow;
      return "closed";
    });
    await add(queue, closed("d-1"));
    await waitFor("the delivery being handled", () => started);
    const closing = worker.close(5000);
    setTimeout(release, 100);
    await closing;
    expect((await deliveryOutcomes(queue)).map((o) => o.delivery)).toEqual(["d-1"]);
  });
});
