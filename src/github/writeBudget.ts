import { randomBytes } from "node:crypto";
import type { WriteBudgetLog, WriteWindows } from "../store/writeBudgetLog.js";

/**
 * GitHub's published limits on content-creating requests (comments, reactions, labels, edits), on
 * top of the 5,000–15,000 requests an hour of an installation token: about 80 a minute and 500 an
 * hour. Past them GitHub answers 403 or 429 "You have exceeded a secondary rate limit", and an
 * integration that keeps writing while limited may be banned.
 */
export const GITHUB_CONTENT_LIMITS = { perMinute: 80, perHour: 500 } as const;

/** The defaults of GITHUB_WRITES_PER_MINUTE / _PER_HOUR (well under GitHub's limits, leaving room for the agents' own writes). */
export const DEFAULT_WRITE_WINDOWS: WriteWindows = { perMinute: 40, minuteMs: 60_000, perHour: 300, hourMs: 3_600_000 };

/** When GitHub limits the app without saying for how long, it waits at least this long (GitHub's advice). */
export const DEFAULT_PAUSE_SECONDS = 60;
/** The backoff of repeated limits never waits longer than this. */
export const MAX_PAUSE_SECONDS = 3600;
/** Consecutive limits are counted for the backoff until an installation has been quiet this long. */
const STRIKE_MEMORY_SECONDS = 3600;
/**
 * A granted write is logged as sent this long after its grant: one that goes out within it (nearly
 * all: a request takes milliseconds) costs one call to Redis, not two. One held back longer (by
 * Octokit's own pacing, say) is counted again from when it went.
 */
export const SEND_SLACK_MS = 1000;

export type Grant =
  { granted: true; ticket: string; takenAt: number; limited: boolean } | { granted: false; waitMs: number; reason: "paused" | "minute" | "hour" };

/** What a response says about GitHub limiting the app's writes. */
export interface LimitSignal {
  kind: "secondary" | "primary";
  /** Seconds GitHub asked the app to wait (retry-after, or until x-ratelimit-reset), when it said. */
  retryAfterSeconds?: number;
}

/**
 * The one place that knows how many content-creating writes an installation may make: a sliding
 * minute and hour per installation, shared by every replica through Redis (src/store/writeBudgetLog.ts
 * holds the keys and scripts), and the pause GitHub imposes on a secondary limit. Writes are asked
 * for before they are sent (`take`) and counted from when they were sent at the latest (`sent`), so
 * GitHub sees no more than the budget in any window. Its callers write through BudgetedWriter: the
 * feedback worker, and a round's start putting its 🚀 on the comment that dispatched it.
 */
export class WriteBudget {
  private readonly random: () => number;
  private readonly sendSlackMs: number;

  constructor(
    private readonly log: WriteBudgetLog,
    private readonly windows: WriteWindows,
    options: { random?: () => number; sendSlackMs?: number } = {},
  ) {
    this.random = options.random ?? Math.random;
    this.sendSlackMs = options.sendSlackMs ?? SEND_SLACK_MS;
  }

  /** One write for the installation: granted (call `sent` once it went out), or the ms until one may go. */
  async take(installationId: number): Promise<Grant> {
    const ticket = `${Date.now()}-${randomBytes(4).toString("hex")}`;
    const takenAt = performance.now();
    const { waitMs, reason, limited } = await this.log.takeWrite(installationId, this.windows, ticket, this.sendSlackMs);
    return reason === "ok" ? { granted: true, ticket, takenAt, limited } : { granted: false, waitMs, reason };
  }

  /**
   * The granted write went out, and went through or not. One sent later than the slack counts from
   * now; one that went through after a limit starts a later limit's backoff from the beginning. Most
   * writes need neither, and cost nothing here. (A limit met by another write while this one was in
   * flight keeps its strike: the next limit backs off longer, never shorter.)
   */
  async sent(installationId: number, grant: Extract<Grant, { granted: true }>, wentThrough: boolean): Promise<void> {
    const settle = performance.now() - grant.takenAt > this.sendSlackMs;
    const clearStrikes = wentThrough && grant.limited;
    if (settle || clearStrikes) await this.log.settleWrite(installationId, grant.ticket, { settle, clearStrikes });
  }

  /** GitHub limited the installation: no write for it until the returned ms have passed. */
  async limited(installationId: number, signal: LimitSignal): Promise<number> {
    const strikes = await this.log.addWriteStrike(installationId, STRIKE_MEMORY_SECONDS);
    return this.log.pauseWrites(installationId, pauseMs(signal.retryAfterSeconds, strikes, this.random));
  }

  /** Installations whose writes are paused now, with the seconds left. */
  async paused(): Promise<Array<{ installationId: number; secondsLeft: number }>> {
    return (await this.log.pausedInstallations(STRIKE_MEMORY_SECONDS * 1000)).map((p) => ({
      installationId: p.installationId,
      secondsLeft: Math.ceil(p.msLeft / 1000),
    }));
  }
}

/**
 * How long to stop writing after the `strikes`-th limit in a row: what GitHub asked (at least a
 * minute when it did not say), doubled for each limit in a row, capped at an hour, plus up to 20 %
 * jitter so replicas and installations do not all come back at once. Never less than GitHub asked.
 */
export function pauseMs(retryAfterSeconds: number | undefined, strikes: number, random: () => number = Math.random): number {
  const asked = retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? retryAfterSeconds : DEFAULT_PAUSE_SECONDS;
  const backoff = Math.min(asked * 2 ** Math.max(0, Math.min(strikes - 1, 12)), Math.max(asked, MAX_PAUSE_SECONDS));
  return Math.ceil(backoff * 1000 * (1 + 0.2 * random()));
}

interface HttpErrorLike {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

/**
 * Reads a failed request for GitHub limiting the app: a 403 or 429 with `retry-after`, with GitHub's
 * "secondary rate limit" message, or with `x-ratelimit-remaining: 0` (the primary limit). Anything
 * else (a real 403: no permission) is not a limit.
 */
export function limitSignalOf(error: unknown, now = Date.now()): LimitSignal | undefined {
  const e = error as HttpErrorLike;
  if (e?.status !== 403 && e?.status !== 429) return undefined;
  const headers = e.response?.headers ?? {};
  const header = (name: string) => {
    const value = headers[name] ?? headers[name.toLowerCase()];
    return value === undefined ? undefined : String(value);
  };
  const message = `${e.message ?? ""} ${JSON.stringify(e.response?.data ?? "")}`;
  const retryAfter = Number(header("retry-after"));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  if (/secondary rate limit|abuse detection/i.test(message) || (retryAfterSeconds !== undefined && header("x-ratelimit-remaining") !== "0")) {
    return { kind: "secondary", retryAfterSeconds };
  }
  if (header("x-ratelimit-remaining") === "0") {
    const reset = Number(header("x-ratelimit-reset"));
    const untilReset = Number.isFinite(reset) && reset > 0 ? Math.ceil(reset - now / 1000) + 1 : undefined;
    return { kind: "primary", retryAfterSeconds: retryAfterSeconds ?? (untilReset !== undefined && untilReset > 0 ? untilReset : undefined) };
  }
  if (e.status === 429) return { kind: "secondary", retryAfterSeconds };
  return undefined;
}
