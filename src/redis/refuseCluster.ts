import type { Redis } from "ioredis";
import { RedisClusterUnsupportedError } from "../errors.js";
import { CLUSTER_UNSUPPORTED } from "./redisUrl.js";

/**
 * Refuses a Redis in cluster mode before anything is written to it: the store's scripts would
 * meet CROSSSLOT and MOVED errors at the first gate. A server that will not answer INFO (an ACL
 * without it) cannot be told apart and is let through; a lost connection is the caller's error.
 */
export async function refuseCluster(redis: Pick<Redis, "info">): Promise<void> {
  let info: string;
  try {
    info = await redis.info("cluster");
  } catch (error) {
    if ((error as Error).name === "ReplyError") return;
    throw error;
  }
  if (/^cluster_enabled:1\s*$/m.test(info)) throw new RedisClusterUnsupportedError(CLUSTER_UNSUPPORTED);
}
