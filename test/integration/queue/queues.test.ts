import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { producerConnection } from "../../../src/queue/connection.js";
import { Queues } from "../../../src/queue/queues.js";
import { waitFor } from "../../support/harness.js";

/** Runs `body` with the process's unhandled rejections collected, and returns them. */
async function unhandledRejectionsDuring(body: () => Promise<void>): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    await body();
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  return unhandled;
}

/** A fail-fast producer, connecting, its own errors ignored (the queues' are under test). */
function connectingProducer(): Redis {
  const producer = producerConnection(inject("redisUrl"));
  producer.on("error", () => undefined);
  return producer;
}

describe("Queues: connection errors", () => {
  it("reports a connection dropped while the queues initialise to onError, not as an unhandled rejection", async () => {
    const errors: Array<{ message: string; queue: string }> = [];
    const unhandled = await unhandledRejectionsDuring(async () => {
      const producer = connectingProducer();
      const queues = new Queues(producer, `queues-${randomUUID().slice(0, 8)}`, (error, queue) => errors.push({ message: error.message, queue }));
      // Ready, then gone before BullMQ's first command (its INFO): the fail-fast producer refuses it.
      await new Promise<void>((resolve) => producer.once("ready", () => resolve()));
      producer.disconnect();
      await waitFor("the queues to report the dropped connection", () => new Set(errors.map((e) => e.queue)).size >= 6, 5000);
      await queues.close().catch(() => undefined);
      expect(new Set(errors.map((e) => e.queue))).toEqual(new Set(["inbound", "spawn", "feedback", "timeouts", "maintenance", "mirror"]));
      expect(errors[0]!.message).toMatch(/Stream isn't writeable|Connection is closed/);
    });
    expect(unhandled).toEqual([]);
  });

  it("a close while the queues still initialise: the initialisation failing afterwards is no unhandled rejection", async () => {
    const unhandled = await unhandledRejectionsDuring(async () => {
      const producer = connectingProducer();
      const queues = new Queues(producer, `queues-${randomUUID().slice(0, 8)}`);
      const ready = new Promise<void>((resolve) => producer.once("ready", () => resolve()));
      // Closed before the connection is ready: BullMQ drops the queues' listeners but not their initialisation.
      await queues.close();
      await ready;
      // Gone between "ready" and BullMQ's first command, so that abandoned initialisation fails.
      producer.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    expect(unhandled).toEqual([]);
  });

  it("adds jobs once the producer is connected (the listener changes nothing on the happy path)", async () => {
    const producer = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
    const errors: Error[] = [];
    const queues = new Queues(producer, `queues-${randomUUID().slice(0, 8)}`, (error) => errors.push(error));
    await queues.addTimeout("gate-1", 60_000, 0);
    expect(await queues.timeouts.getDelayedCount()).toBe(1);
    await queues.close();
    producer.disconnect();
    expect(errors).toEqual([]);
  });
});

describe("Queues: reconciliation", () => {
  it("queues one full pass now and the scheduled passes from one interval on, not a second pass at once", async () => {
    const producer = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
    const queues = new Queues(producer, `queues-${randomUUID().slice(0, 8)}`);
    const before = Date.now();
    await queues.scheduleReconcile(600);
    const waiting = await queues.maintenance.getWaiting();
    expect(waiting.map((j) => j.data)).toEqual([{ full: true }]);
    const delayed = await queues.maintenance.getDelayed();
    expect(delayed).toHaveLength(1);
    expect(delayed[0]!.timestamp + delayed[0]!.delay).toBeGreaterThanOrEqual(before + 600_000);
    await queues.maintenance.obliterate({ force: true });
    await queues.close();
    producer.disconnect();
  });
});
