import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";

/**
 * String: when the app first wrote this namespace (ms). Created since this process started means
 * Redis was wiped under it: a round may still run on a live worker that has not noticed yet.
 */
export function epochKey(prefix: string): string {
  return keyIn(prefix, "epoch");
}

/** Marks of the namespace as a whole: its epoch, and when reconciliation last finished. */
export class NamespaceMarks {
  readonly #redis: Redis;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = redis;
  }

  /** String: when reconciliation last finished (ms), so the next one scans issues updated since. */
  lastReconcileKey(): string {
    return keyIn(this.prefix, "reconcile:last");
  }

  /** String: when the last full reconciliation (every repository read) finished (ms). */
  lastFullReconcileKey(): string {
    return keyIn(this.prefix, "reconcile:lastFull");
  }

  /** When the app first wrote this namespace (see epochKey); marked now, and `created`, if nothing was recorded. */
  async epoch(now = Date.now()): Promise<{ at: number; created: boolean }> {
    if ((await this.#redis.set(epochKey(this.prefix), now, "NX")) === "OK") return { at: now, created: true };
    return { at: Number((await this.#redis.get(epochKey(this.prefix))) ?? now), created: false };
  }

  async lastReconcile(): Promise<number | undefined> {
    const value = await this.#redis.get(this.lastReconcileKey());
    return value ? Number(value) : undefined;
  }

  async setLastReconcile(at: number): Promise<void> {
    await this.#redis.set(this.lastReconcileKey(), at);
  }

  async lastFullReconcile(): Promise<number | undefined> {
    const value = await this.#redis.get(this.lastFullReconcileKey());
    return value ? Number(value) : undefined;
  }

  async setLastFullReconcile(at: number): Promise<void> {
    await this.#redis.set(this.lastFullReconcileKey(), at);
  }
}
