import type { WorkerOptions } from "bullmq";

/**
 * How a BullMQ worker holds its jobs. Locks are renewed every `renewEveryMs` while the process lives,
 * however long a job runs, so `lockMs` only bounds how soon a dead worker's job runs again (lock
 * expiry plus up to one stalled check: 20-25 s, where BullMQ's defaults take up to 90 s); and a
 * worker whose job vanished (Redis wiped) learns it at its next renewal.
 */
export interface JobTiming {
  lockMs: number;
  renewEveryMs: number;
  /** How often a worker looks for jobs whose lock ran out (a dead worker's). */
  stalledEveryMs: number;
  /**
   * A job taken back this many times because its lock ran out fails instead: the bound only stops a
   * job that kills its worker every time (an answered gate or a gate's timeout must not be stranded
   * by a second crash, as BullMQ's default, failing at the second stall, would).
   */
  mostStalls: number;
}
/**
 * Locks are renewed this often, so a worker whose job vanished (Redis wiped) learns it within two
 * renewals; a round's agent then has AGENT_KILL_GRACE to exit.
 */
export const LOCK_RENEW_MS = 2_000;

export const JOB_TIMING: JobTiming = { lockMs: 20_000, renewEveryMs: LOCK_RENEW_MS, stalledEveryMs: 5_000, mostStalls: 10 };

/** BullMQ's worker options for `timing`. */
export function lockOptions(timing: JobTiming) {
  return {
    lockDuration: timing.lockMs,
    lockRenewTime: timing.renewEveryMs,
    stalledInterval: timing.stalledEveryMs,
    maxStalledCount: timing.mostStalls,
  } satisfies Partial<WorkerOptions>;
}
