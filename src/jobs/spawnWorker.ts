import { randomBytes } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { withDeadline } from "../deadline.js";
import { blockingConnection, unmendable, workerName } from "./workerParts.js";
import type { SpawnQueue, SpawnTask } from "./spawnQueue.js";
import { LOCK_RENEW_MS } from "./roundGuards.js";

/** Why a spawn job stopped by shutdown is not completed: it goes back to the queue for the next worker, without using an attempt. */
export class ShutdownInterrupt extends Error {
  override name = "ShutdownInterrupt";
}

/**
 * Raised inside a spawn job whose lock this worker could not renew (Redis lost it, or it ran out
 * while Redis was unreachable): another worker may already re-run the round, so this agent stops.
 */
export class LockLost extends Error {
  override name = "LockLost";
}

/**
 * The worker's clock. Locks are renewed every `renewEveryMs` while this process lives, however long
 * the agent runs, so `lockMs` only bounds how soon a dead worker's job runs again; and a worker
 * whose job vanished (Redis wiped) learns it within two renewals and stops the agent (LockLost).
 */
export interface SpawnTiming {
  lockMs: number;
  renewEveryMs: number;
  /** A failed job's first retry; doubled at each retry after. */
  backoffMs: number;
  /** The longest wait for a job before the worker looks again (for stalled jobs among others). */
  idleMs: number;
  /** How often the worker looks for jobs whose lock ran out (a dead worker's), as it takes one. */
  stalledEveryMs: number;
  /**
   * A job put back this many times because its lock ran out fails instead: the bound only stops a
   * job that kills its worker every time (an answered gate must not be stranded by a second crash).
   */
  mostStalls: number;
}
export const SPAWN_TIMING: SpawnTiming = {
  lockMs: 20_000,
  renewEveryMs: LOCK_RENEW_MS,
  backoffMs: 2_000,
  idleMs: 5_000,
  stalledEveryMs: 5_000,
  mostStalls: 10,
};

export interface SpawnWorkerPorts {
  queue: SpawnQueue;
  log: Pick<Logger, "warn" | "error" | "debug">;
  /** Runs the job; `signal` aborts with ShutdownInterrupt or LockLost. What it returns is the job's outcome line. */
  run(task: SpawnTask, signal: AbortSignal): Promise<string>;
}

/** A job running here; `ending` once its run returned (its lock is no longer renewed), `done` once its end is recorded. */
interface Running {
  task: SpawnTask;
  controller: AbortController;
  ending: boolean;
  done?: Promise<void>;
}

export interface SpawnWorker {
  /** Stops taking jobs, gives running agents `graceMs`, then stops them (their jobs go back to the queue), and waits for them up to `deadlineMs`. */
  close(graceMs: number, deadlineMs: number): Promise<void>;
}

/**
 * Runs spawn jobs, `concurrency` at once: takes one while it has a free slot, holds each under a
 * lock it renews, and ends it as it ended: completed with its outcome; put back without using an
 * attempt when the app shut down under it; left alone when its lock was lost (it is another
 * worker's now); otherwise retried after 2 s, 4 s … until its attempts are used, then failed.
 * `connection` retries forever (a worker connection): the wait for work holds a duplicate of it.
 */
export function startSpawnWorker(ports: SpawnWorkerPorts, connection: Redis, concurrency: number, timing: SpawnTiming = SPAWN_TIMING): SpawnWorker {
  const { queue, log } = ports;
  const name = workerName();
  const blocking = blockingConnection(connection, log, "spawn queue");
  const stopping = new AbortController();
  const running = new Map<string, Running>();
  let taken = 0;
  let lookedForStalled = 0;
  let slotFreed: (() => void) | undefined;

  /** A job stopped by this worker: put back without using an attempt (a shutdown), or left to its new holder (a lost lock). True when it was. */
  async function stopped({ task, controller }: Running): Promise<boolean> {
    const reason: unknown = controller.signal.reason;
    // Back to the queue without using an attempt: deploys must not exhaust a round's retries.
    if (reason instanceof ShutdownInterrupt) await queue.retry(task, 1000, false);
    return reason instanceof ShutdownInterrupt || reason instanceof LockLost;
  }

  async function end(job: Running): Promise<void> {
    const { task, controller } = job;
    let outcome: string;
    try {
      outcome = await ports.run(task, controller.signal);
    } catch (error) {
      job.ending = true;
      if (await stopped(job)) return;
      const made = task.attemptsMade + 1;
      log.warn({ queue: "spawn", job: task.id, attempt: made, err: error }, "job failed");
      if (made >= task.attempts || unmendable(error)) await queue.fail(task, error instanceof Error ? error.message : String(error));
      else await queue.retry(task, timing.backoffMs * 2 ** (made - 1), true);
      return;
    }
    job.ending = true;
    if (!(await stopped(job))) await queue.complete(task, outcome);
  }

  function start(task: SpawnTask): void {
    const job: Running = { task, controller: new AbortController(), ending: false };
    running.set(task.id, job);
    job.done = end(job)
      .catch((error: unknown) =>
        log.error({ queue: "spawn", job: task.id, err: error }, "could not record the spawn job's end; its lock runs out and it runs again"),
      )
      .finally(() => {
        running.delete(task.id);
        slotFreed?.();
      });
  }

  /** Waits until a slot is free or the worker closes. */
  const freeSlot = () =>
    new Promise<void>((resolve) => {
      slotFreed = resolve;
      if (stopping.signal.aborted) resolve();
    }).finally(() => (slotFreed = undefined));

  async function loop(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        if (running.size >= concurrency) {
          await freeSlot();
          continue;
        }
        const lookForStalled = Date.now() - lookedForStalled >= timing.stalledEveryMs;
        if (lookForStalled) lookedForStalled = Date.now();
        const token = `${name}-${++taken}-${randomBytes(2).toString("hex")}`;
        const got = await queue.take(token, timing.lockMs, { mostStalls: timing.mostStalls, lookForStalled });
        for (const { id, failed } of got.stalled)
          log.warn({ queue: "spawn", job: id }, failed ? "a spawn job stalled too often and failed" : "a stalled spawn job (its worker died) runs again");
        if (got.kind === "job") start(got.task);
        // Nothing more waits: no take until something is queued (the wake set), due, or a look for stalled jobs is.
        if (!got.more && running.size < concurrency) {
          await queue.waitForWork(blocking, Math.min(timing.idleMs, Math.max(10, got.dueInMs ?? timing.idleMs)));
        }
      } catch (error) {
        if (stopping.signal.aborted) return;
        log.warn({ err: error }, "could not take a spawn job; trying again in a second");
        await delay(1000, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  }

  const renewing = setInterval(() => {
    // A job stopped for a shutdown keeps its lock until its agent is gone: then it is put back.
    const held = [...running.values()].filter((r) => !r.ending && !(r.controller.signal.reason instanceof LockLost));
    queue
      .extendLocks(
        held.map((r) => r.task),
        timing.lockMs,
      )
      .then(
        (lost) => {
          for (const id of lost) {
            const job = running.get(id);
            if (!job || job.ending || job.controller.signal.aborted) continue;
            log.warn({ queue: "spawn", job: id }, "lost the lock of a running spawn job; stopping its agent so the round is not run twice");
            job.controller.abort(new LockLost(`lost the lock of job ${id}`));
          }
        },
        (error: unknown) => log.debug({ err: error }, "could not renew the spawn jobs' locks"),
      );
  }, timing.renewEveryMs);

  const looping = loop();

  return {
    async close(graceMs: number, deadlineMs: number) {
      stopping.abort();
      slotFreed?.();
      blocking.disconnect();
      const timer = setTimeout(() => {
        for (const job of running.values()) job.controller.abort(new ShutdownInterrupt("the app shut down while the agent ran; the round will be retried"));
      }, graceMs);
      const late = () => new Error("the spawn worker's jobs did not end in time");
      await withDeadline(Promise.all([looping, ...[...running.values()].map((r) => r.done)]), deadlineMs, late).catch(() => undefined);
      clearTimeout(timer);
      clearInterval(renewing);
    },
  };
}
