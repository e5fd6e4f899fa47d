import type { TestProject } from "vitest/node";
import { startPrivateRedis, type PrivateRedis } from "../../src/redis/privateRedis.js";

let redis: PrivateRedis | undefined;

/** Starts a private redis-server unless REDIS_URL points at one (as .ci/run does). */
export async function setup(project: TestProject): Promise<void> {
  if (!process.env.REDIS_URL) {
    redis = await startPrivateRedis();
    process.env.REDIS_URL = redis.url;
  }
  project.provide("redisUrl", process.env.REDIS_URL);
}

export async function teardown(): Promise<void> {
  await redis?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
