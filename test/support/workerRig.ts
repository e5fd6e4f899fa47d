import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, inject } from "vitest";

/**
 * A BullMQ worker test's shared parts: one Redis connection (as BullMQ's workers want it), the
 * workers and queues each test opens, closed after it, and the warnings the workers logged.
 */
export function workerRig<W, Q extends { close(): Promise<unknown> }>(closeWorker: (worker: W) => Promise<unknown>) {
  const rig = {
    redis: undefined as unknown as Redis,
    workers: [] as W[],
    queues: [] as Q[],
    warnings: [] as Array<Record<string, unknown>>,
    log: { warn: (fields: Record<string, unknown>) => void rig.warnings.push(fields), error: () => undefined },
  };
  beforeAll(() => {
    rig.redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: null });
  });
  afterEach(async () => {
    await Promise.all(rig.workers.map(closeWorker));
    await Promise.all(rig.queues.map((queue) => queue.close()));
    rig.workers.length = 0;
    rig.queues.length = 0;
    rig.warnings.length = 0;
  });
  afterAll(async () => {
    await rig.redis.quit();
  });
  return rig;
}
