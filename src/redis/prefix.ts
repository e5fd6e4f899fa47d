import { z } from "zod";

/**
 * REDIS_PREFIX: the app's and its queues' key namespace. Braces are refused with the rest: a hash
 * tag `{…}` is what a Redis Cluster setup would need, and Cluster is not supported.
 */
export const RedisPrefixSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,40}$/, "must be 1-40 letters, digits, _ or - (a hash tag {…} is refused: Redis Cluster is not supported)")
  .default("escalation");

/** A key of the namespace `prefix`: the one place a key's name is joined to the prefix (every key and channel the app itself names is built through it; BullMQ prefixes its queues' own). */
export function keyIn(prefix: string, name: string): string {
  return `${prefix}:${name}`;
}
