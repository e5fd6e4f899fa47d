import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, inject } from "vitest";
import { openStores, type Stores } from "../../src/store/stores.js";

/**
 * One connection to the tests' Redis for the calling test file (opened before its tests, closed
 * after), and a store under a fresh key prefix per call, so tests never see each other's keys.
 */
export function storeRedis(): { redis: () => Redis; freshStore: () => Stores } {
  let redis: Redis | undefined;
  beforeAll(async () => {
    redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
    await redis.ping();
  });
  afterAll(async () => {
    await redis?.quit();
  });
  const connection = () => {
    if (!redis) throw new Error("storeRedis(): the connection opens in beforeAll; use it inside a test");
    return redis;
  };
  return { redis: connection, freshStore: () => openStores(connection(), `test-${randomUUID().slice(0, 8)}`) };
}
