import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { ZodError } from "zod";

/** The feedback writer's worker parts (src/status/feedbackWorker.ts): a name, a blocking connection, the wait on a wake set, what no retry mends. */

/** A name no other worker has, across replicas and restarts: the consumer in a group, the holder of a lease. */
export function workerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

/** A duplicate of `connection` for a blocking read (it is held while it waits); its errors are logged at debug, its commands retried. */
export function blockingConnection(connection: Redis, log: Pick<Logger, "debug">, what: string): Redis {
  const blocking = connection.duplicate();
  blocking.on("error", (error: Error) => log.debug({ err: error.message }, `${what}: blocking connection error`));
  return blocking;
}

/** An error no retry can mend: what was recorded does not parse. */
export function unmendable(error: unknown): boolean {
  return error instanceof ZodError || error instanceof SyntaxError;
}

/**
 * Waits up to `ms` on `blocking` (a connection of its own) for the wake set `key`: when what was
 * queued or put off since the worker last looked is due (ms, 0: now), or undefined at the timeout.
 * A wake set holds one member, 'wake', scored by the earliest such due time: a queuing script tells
 * with one `ZADD … LT` (a later time never moves an earlier one), and this wait takes it (`BZPOPMIN`).
 */
export async function waitOnWake(blocking: Redis, key: string, ms: number): Promise<number | undefined> {
  const woken = await blocking.bzpopmin(key, Math.max(0.01, ms / 1000));
  return woken ? Number(woken[2]) || 0 : undefined;
}
