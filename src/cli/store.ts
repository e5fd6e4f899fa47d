import { Redis } from "ioredis";
import { z } from "zod";
import { EscalationError, StoreUnavailableError } from "../errors.js";
import { GateStore } from "../gates/store.js";
import { safeRedisUrl } from "../redis/safeUrl.js";
import { invalidEnvironment } from "./usage.js";

const StoreEnv = z.object({
  REDIS_URL: z.string({ error: "is not set: point it at the app's Redis, e.g. REDIS_URL=redis://127.0.0.1:6379" }).url(),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, "must be 1-40 letters, digits, _ or -").default("escalation"),
});

export interface OpenedStore {
  store: GateStore;
  /** The prefix in use, for messages. */
  prefix: string;
  close(): Promise<void>;
}

/**
 * Connects an operator command to the app's Redis (REDIS_URL, REDIS_PREFIX as the app uses them).
 * Fails fast: a CLI must say "cannot reach Redis" in seconds, not retry forever as the app does.
 */
export async function openStore(env: NodeJS.ProcessEnv): Promise<OpenedStore> {
  const parsed = StoreEnv.safeParse(env);
  if (!parsed.success) throw invalidEnvironment(parsed.error.issues);
  const { REDIS_URL: url, REDIS_PREFIX: prefix } = parsed.data;
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on("error", () => undefined); // reported by connect() or the command that failed
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new StoreUnavailableError(`Could not reach Redis at ${safeRedisUrl(url)}: ${(error as Error).message}`, { cause: error });
  }
  return {
    store: new GateStore(redis, prefix),
    prefix,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
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
