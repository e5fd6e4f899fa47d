import type { Redis } from "ioredis";
import { createRedis } from "../redis/redisUrl.js";

/**
 * Producers on the webhook path fail fast: with Redis down, a delivery must get a 5xx at once
 * (GitHub can redeliver it) rather than hang in ioredis's offline queue.
 */
export function producerConnection(url: string): Redis {
  return createRedis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
}

/** Workers block on Redis and must retry forever, as BullMQ requires. */
export function workerConnection(url: string): Redis {
  return createRedis(url, { maxRetriesPerRequest: null });
}

/** General commands from workers and the CLI: retry briefly, then surface the error. */
export function commandConnection(url: string): Redis {
  return createRedis(url, { maxRetriesPerRequest: 3 });
}
