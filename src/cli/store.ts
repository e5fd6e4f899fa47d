import type { Redis } from "ioredis";
import { z } from "zod";
import { EscalationError, StoreUnavailableError } from "../errors.js";
import { refuseCluster } from "../redis/refuseCluster.js";
import { RedisPrefixSchema } from "../redis/prefix.js";
import { createRedis, RedisUrlSchema } from "../redis/redisUrl.js";
import { safeRedisUrl } from "../redis/safeUrl.js";
import { readRedisUrlFile, redisUrlPath } from "../redis/urlFile.js";
import { openStores, type Stores } from "../store/stores.js";
import { EnvironmentError, invalidEnvironment } from "./usage.js";

const StoreEnv = z.object({
  REDIS_URL: RedisUrlSchema.optional(),
  DATA_DIR: z.string().min(1).default("data"),
  REDIS_PREFIX: RedisPrefixSchema,
});

/** The app's Redis and where the command learnt it: "REDIS_URL" or the path of DATA_DIR/redis.url. */
export interface AppRedis {
  url: string;
  from: string;
}

/**
 * The app's Redis: REDIS_URL, or else the URL the app's private Redis wrote to DATA_DIR (its port
 * and password change at every start). Finding neither is an EnvironmentError saying what to set.
 */
export function appRedis(redisUrl: string | undefined, dataDir: string): AppRedis {
  if (redisUrl) return { url: redisUrl, from: "REDIS_URL" };
  const path = redisUrlPath(dataDir);
  let url: string | undefined;
  try {
    url = readRedisUrlFile(dataDir);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "EACCES" ? "permission denied: run this as the app's user" : (error as Error).message;
    throw new EnvironmentError(`REDIS_URL is not set and ${path} cannot be used (${why}); or set REDIS_URL to the app's Redis.`, ["REDIS_URL"], {
      cause: error,
    });
  }
  if (url === undefined) {
    throw new EnvironmentError(
      `REDIS_URL is not set and there is no ${path}: set REDIS_URL to the app's Redis, or DATA_DIR to the data directory of the running app (its private Redis writes redis.url there).`,
      ["REDIS_URL", "DATA_DIR"],
    );
  }
  return { url, from: path };
}

/** "Could not reach Redis at …": naming the file when the URL came from one, which outlives an app that was killed. */
function unreachableRedis(redis: AppRedis, error: unknown): StoreUnavailableError {
  const where = redis.from === "REDIS_URL" ? safeRedisUrl(redis.url) : `${safeRedisUrl(redis.url)} (from ${redis.from}; is the app running?)`;
  return new StoreUnavailableError(`Could not reach Redis at ${where}: ${(error as Error).message}`, { cause: error });
}

export interface OpenedStore {
  store: Stores;
  /** The prefix in use, for messages. */
  prefix: string;
  close(): Promise<void>;
}

/**
 * Connects an operator command to the app's Redis (REDIS_URL or DATA_DIR/redis.url, REDIS_PREFIX,
 * as the app uses them). Fails fast: a CLI must say "cannot reach Redis" in seconds, not retry
 * forever as the app does.
 */
export async function openStore(env: NodeJS.ProcessEnv): Promise<OpenedStore> {
  const parsed = StoreEnv.safeParse(env);
  if (!parsed.success) throw invalidEnvironment(parsed.error.issues);
  const { REDIS_PREFIX: prefix } = parsed.data;
  const redis = await connectOnce(appRedis(parsed.data.REDIS_URL, parsed.data.DATA_DIR));
  return {
    store: openStores(redis, prefix),
    prefix,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/**
 * A connection that fails in seconds, without retrying, when Redis (or every Sentinel) cannot be
 * reached or refuses the password, and refuses a Redis Cluster as the app does.
 */
export async function connectOnce(target: AppRedis): Promise<Redis> {
  const redis = createRedis(target.url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
  });
  // Reported by connect() or the command that failed; connect() itself says only "Connection is closed".
  let cause: unknown;
  redis.on("error", (error: unknown) => (cause ??= error));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw unreachableRedis(target, cause ?? error);
  }
  try {
    await refuseCluster(redis);
  } catch (error) {
    redis.disconnect();
    throw error instanceof EscalationError ? error : unreachableRedis(target, error);
  }
  return redis;
}

/** Runs `work` with a store, always closing the connection; Redis errors become StoreUnavailableError. */
export async function withStore<T>(env: NodeJS.ProcessEnv, work: (opened: OpenedStore) => Promise<T>): Promise<T> {
  const opened = await openStore(env);
  try {
    return await work(opened);
  } catch (error) {
    if (error instanceof EscalationError) throw error;
    if (isRedisError(error)) throw new StoreUnavailableError(`Redis failed: ${(error as Error).message}`, { cause: error });
    throw error;
  } finally {
    await opened.close();
  }
}

function isRedisError(error: unknown): boolean {
  const name = (error as { name?: string }).name ?? "";
  const message = (error as { message?: string }).message ?? "";
  return name === "ReplyError" || name === "MaxRetriesPerRequestError" || /Connection is closed|ECONNREFUSED|ECONNRESET/.test(message);
}
