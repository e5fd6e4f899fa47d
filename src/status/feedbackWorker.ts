import { setTimeout as delay } from "node:timers/promises";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { withDeadline } from "../deadline.js";
import { blockingConnection, unmendable, workerName } from "../jobs/workerParts.js";
import { LOCK_RENEW_MS } from "../jobs/roundGuards.js";
import { WritesDeferred } from "./budgetedWriter.js";
import type { FeedbackOutbox, OutboxEntry } from "./feedbackOutbox.js";

/** Tries of an entry whose writes fail, 2 s, 4 s … about four minutes apart in all, before it is moved to the failed stream. */
const ATTEMPTS = 8;

/** The writer's clock: its lease, how often it is kept and looked for, a retry's first backoff, the longest wait for work. */
export interface FeedbackTiming {
  /** A writer that has not kept its lease this long lost it (it died, or lost Redis): another replica's takes over, as a job's lock in src/jobs/startWorkers.ts. */
  leaseMs: number;
  /** How often the holder keeps its lease, and the others look whether it is free. */
  keepEveryMs: number;
  /** Doubled at each retry. */
  backoffMs: number;
  /** The longest wait for something to be queued before the writer looks again. */
  idleMs: number;
}
const TIMING: FeedbackTiming = { leaseMs: 20_000, keepEveryMs: LOCK_RENEW_MS, backoffMs: 2000, idleMs: 5000 };

export interface FeedbackWorkerPorts {
  outbox: FeedbackOutbox;
  log: Pick<Logger, "warn" | "error" | "debug">;
  /** Performs an entry's ops from its progress on, saving progress after each op not to repeat; returns the writes sent. */
  write(entry: OutboxEntry, saveProgress: (done: number) => Promise<void>): Promise<number>;
}

export interface FeedbackWorker {
  /** Stops taking entries (the one being written ends); resume() takes them again. */
  pause(): void;
  resume(): void;
  /** Stops, lets the entry being written finish within `deadlineMs`, gives the lease up. */
  close(deadlineMs: number): Promise<void>;
}

/**
 * Drains the feedback outbox, one entry at a time, while it holds the lease: one writer across
 * every replica keeps status-comment edits ordered and within GitHub's write pacing (two writers
 * could land an older render last, leaving GitHub's record of the gates, which a rebuild after Redis
 * loss reads, behind). A write the budget or GitHub puts off waits in its lane without using up a
 * try; a failing one is tried again 2 s, 4 s … later, then moved to the failed stream. The lane waits
 * with it either way, so an issue's writes keep their order. `connection` retries forever (a worker
 * connection): the wait for work holds a duplicate of it.
 */
export function startFeedbackWorker(ports: FeedbackWorkerPorts, connection: Redis, timing: FeedbackTiming = TIMING): FeedbackWorker {
  const { outbox, log } = ports;
  const writer = workerName();
  const blocking = blockingConnection(connection, log, "feedback outbox");
  const stopping = new AbortController();
  let holding = false;
  let paused = false;
  let wake: (() => void) | undefined;

  /** Waits `ms`, or less when the worker closes or resumes. */
  const rest = (ms: number) => {
    const woken = new Promise<void>((resolve) => (wake = resolve));
    return Promise.race([delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined), woken]).finally(() => (wake = undefined));
  };

  /** Writes the entry; the ms until the next lane is due once it finished (undefined: none queued), 0 to take again at once. */
  async function write(entry: OutboxEntry): Promise<number | undefined> {
    try {
      await ports.write(entry, (done) => outbox.saveProgress(entry, done));
      return await outbox.finish(entry);
    } catch (error) {
      if (error instanceof WritesDeferred) {
        await outbox.putOff(entry, Date.now() + error.retryInMs, entry.attempts);
        return 0;
      }
      const attempts = entry.attempts + 1;
      log.warn({ queue: "feedback", entry: entry.id, attempt: attempts, err: error }, "feedback write failed");
      if (attempts >= ATTEMPTS || unmendable(error)) await outbox.fail(entry, error instanceof Error ? error.message : String(error), attempts);
      else await outbox.putOff(entry, Date.now() + timing.backoffMs * 2 ** (attempts - 1), attempts);
      return 0;
    }
  }

  /**
   * Waits until the lane due first is due, or something queued is: an entry queued for later (a
   * label taken off after a delay) moves the wait no later and costs no take before it is due.
   */
  async function waitFor(dueInMs: number | undefined): Promise<void> {
    let until = Date.now() + Math.min(timing.idleMs, dueInMs ?? timing.idleMs);
    while (!stopping.signal.aborted) {
      const queuedDueAt = await outbox.waitForWork(blocking, Math.max(10, until - Date.now()));
      if (queuedDueAt === undefined || queuedDueAt <= Date.now()) return;
      until = Math.min(until, queuedDueAt);
    }
  }

  async function loop(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        if (paused) {
          await rest(timing.idleMs);
          continue;
        }
        if (!holding) holding = await outbox.hold(writer, timing.leaseMs);
        if (!holding) {
          await rest(timing.keepEveryMs);
          continue;
        }
        const taken = await outbox.take(writer);
        if (taken.kind === "lease") {
          holding = false;
          log.warn({ writer }, "the feedback outbox's lease went to another writer (this one stalled, or Redis lost it)");
        } else if (taken.kind === "idle") {
          await waitFor(taken.nextDueAt === undefined ? undefined : taken.nextDueAt - Date.now());
        } else {
          // Nothing due after it: no take until something is queued or due.
          const dueInMs = await write(taken.entry);
          if (dueInMs !== 0) await waitFor(dueInMs);
        }
      } catch (error) {
        if (stopping.signal.aborted) return;
        log.warn({ err: error }, "could not drain the feedback outbox; trying again in a second");
        await rest(1000);
      }
    }
  }

  const keeping = setInterval(() => {
    if (!holding) return;
    outbox.hold(writer, timing.leaseMs).then(
      (kept) => {
        if (!kept && holding) log.warn({ writer }, "the feedback outbox's lease is no longer this writer's: another took it over, or Redis lost it");
        holding = kept;
      },
      (error: unknown) => log.debug({ err: error }, "could not keep the feedback outbox's lease"),
    );
  }, timing.keepEveryMs);

  const running = loop();

  return {
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      wake?.();
    },
    async close(deadlineMs: number) {
      stopping.abort();
      clearInterval(keeping);
      wake?.();
      blocking.disconnect();
      const late = () => new Error("the feedback worker did not finish in time");
      await withDeadline(running, deadlineMs, late).catch(() => undefined);
      if (holding) await withDeadline(outbox.release(writer), 2000, late).catch(() => undefined);
    },
  };
}
