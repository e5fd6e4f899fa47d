import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";
import { withScripts, type ScriptArgs } from "./scriptedRedis.js";

/** The write budget's windows and limits (see src/github/writeBudget.ts). */
export interface WriteWindows {
  minuteMs: number;
  perMinute: number;
  hourMs: number;
  perHour: number;
}

/** Redis's own clock in ms, so every replica's budget and pause agree whatever their clocks say. */
const NOW_MS = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/**
 * KEYS: writes (sorted set of write times), pauses, nextWake. ARGV: installationId, minuteMs,
 * perMinute, hourMs, perHour, member, sendSlackMs. Takes one slot of the installation's write
 * budget: {0, 'ok', limited} when granted, else {waitMs, reason} with how long until the caller
 * should try again: 'paused' (GitHub asked the app to stop), 'hour' or 'minute' (the sliding
 * window is full). A granted write is logged as sent `sendSlackMs` from now, so one sent within that
 * needs no second call (SETTLE_WRITE); `limited` (1/0) says GitHub limited the installation within
 * the strikes' memory, so a success has strikes to clear. Writes put off for the budget are told to
 * come back one after the other, at the window's pace, rather than all at the moment the first
 * slot frees.
 */
const TAKE_WRITE = `
${NOW_MS}
local pausedUntil = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0')
if pausedUntil > now then return {pausedUntil - now, 'paused'} end
local minuteMs, perMinute, hourMs, perHour = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
-- Writes older than the hour count until the log is as long as the hour's budget: trimmed only then.
local inHour = redis.call('ZCARD', KEYS[1])
if inHour >= perHour then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - hourMs)
  inHour = redis.call('ZCARD', KEYS[1])
end
local wait, reason, pace = 0, 'ok', 0
if inHour >= perHour then
  local frees = redis.call('ZRANGE', KEYS[1], inHour - perHour, inHour - perHour, 'WITHSCORES')
  wait, reason, pace = math.max(1, tonumber(frees[2]) + hourMs - now), 'hour', hourMs / perHour
else
  local inMinute = redis.call('ZCOUNT', KEYS[1], now - minuteMs + 1, '+inf')
  if inMinute >= perMinute then
    local frees = redis.call('ZRANGEBYSCORE', KEYS[1], now - minuteMs + 1, '+inf', 'WITHSCORES', 'LIMIT', inMinute - perMinute, 1)
    wait, reason, pace = math.max(1, tonumber(frees[2]) + minuteMs - now), 'minute', minuteMs / perMinute
  end
end
if reason ~= 'ok' then
  local at = now + wait
  local last = tonumber(redis.call('GET', KEYS[3]) or '0')
  if last + pace > at then at = math.ceil(last + pace) end
  redis.call('SET', KEYS[3], at, 'PX', math.ceil(at - now + hourMs))
  return {at - now, reason}
end
local slack = tonumber(ARGV[7])
redis.call('ZADD', KEYS[1], now + slack, ARGV[6])
redis.call('PEXPIRE', KEYS[1], hourMs + slack)
return {0, 'ok', pausedUntil > 0 and 1 or 0}
`;

/**
 * KEYS: writes, strikes, pauses. ARGV: member, settle (1/0), clear (1/0), installationId. After a
 * granted write: `settle` counts it from now (it went out later than its grant's slack, so GitHub
 * never sees more in any window than the budget); `clear` (it went through after a limit) forgets
 * the strikes, so a later limit backs off from the beginning, and the ended pause with them.
 */
const SETTLE_WRITE = `
${NOW_MS}
if ARGV[2] == '1' then redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1]) end
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[2])
  local pausedUntil = redis.call('ZSCORE', KEYS[3], ARGV[4])
  if pausedUntil and tonumber(pausedUntil) <= now then redis.call('ZREM', KEYS[3], ARGV[4]) end
end
return 1
`;

/** KEYS: pauses. ARGV: installationId, ms. No write for the installation for `ms` (a longer pause stays). Returns ms left. */
const PAUSE_WRITES = `
${NOW_MS}
redis.call('ZADD', KEYS[1], 'GT', now + tonumber(ARGV[2]), ARGV[1])
return tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) - now
`;

/**
 * KEYS: pauses. ARGV: ms an ended pause is kept. Installations still paused, as {installationId,
 * msLeft, …}. An ended pause stays as long as its strikes may (TAKE_WRITE reads it as "limited
 * lately"), then is dropped.
 */
const PAUSED_INSTALLATIONS = `
${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
local out = {}
local rows = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES')
for i = 1, #rows, 2 do
  table.insert(out, rows[i])
  table.insert(out, tostring(tonumber(rows[i + 1]) - now))
end
return out
`;

interface WriteCommands {
  escTakeWrite(...args: ScriptArgs): Promise<[number, string, number?]>;
  escSettleWrite(...args: ScriptArgs): Promise<number>;
  escPauseWrites(...args: ScriptArgs): Promise<number>;
  escPausedInstallations(...args: ScriptArgs): Promise<string[]>;
}

const WRITE_SCRIPTS = {
  escTakeWrite: { numberOfKeys: 3, lua: TAKE_WRITE },
  escSettleWrite: { numberOfKeys: 3, lua: SETTLE_WRITE },
  escPauseWrites: { numberOfKeys: 1, lua: PAUSE_WRITES },
  escPausedInstallations: { numberOfKeys: 1, lua: PAUSED_INSTALLATIONS },
};

/**
 * The GitHub write budget's Redis side (src/github/writeBudget.ts decides with it): each
 * installation's log of recent writes, the pauses GitHub asked for, and the strikes that back off.
 */
export class WriteBudgetLog {
  readonly #redis: Redis & WriteCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<WriteCommands>(redis, WRITE_SCRIPTS);
  }

  /** Sorted set: the installation's recent GitHub content writes (score: ms), the write budget's sliding windows. */
  writesKey(installationId: number): string {
    return keyIn(this.prefix, `github:writes:${installationId}`);
  }
  /** String with TTL: when the last write put off for the installation's budget was told to come back (ms), to space the next. */
  nextWakeKey(installationId: number): string {
    return keyIn(this.prefix, `github:wake:${installationId}`);
  }
  /** Sorted set: installation id → ms until which GitHub told the app to stop writing (secondary limit); an ended pause is kept while its strikes may be. */
  pausesKey(): string {
    return keyIn(this.prefix, "github:paused");
  }
  /** String with TTL: consecutive secondary-limit responses of an installation, for the backoff. */
  strikesKey(installationId: number): string {
    return keyIn(this.prefix, `github:strikes:${installationId}`);
  }

  /**
   * Takes one slot of the installation's write budget: 0 when granted (logged as sent `sendSlackMs`
   * from now; `limited`: GitHub limited the installation lately), else ms to wait and why.
   */
  async takeWrite(
    installationId: number,
    windows: WriteWindows,
    member: string,
    sendSlackMs: number,
  ): Promise<{ waitMs: number; reason: "ok" | "paused" | "minute" | "hour"; limited: boolean }> {
    const [waitMs, reason, limited] = await this.#redis.escTakeWrite(
      this.writesKey(installationId),
      this.pausesKey(),
      this.nextWakeKey(installationId),
      installationId,
      windows.minuteMs,
      windows.perMinute,
      windows.hourMs,
      windows.perHour,
      member,
      sendSlackMs,
    );
    return { waitMs: Number(waitMs), reason: reason as "ok" | "paused" | "minute" | "hour", limited: limited === 1 };
  }

  /** After the granted write `member`: `settle` counts it from now, `clearStrikes` forgets the installation's strikes and ended pause. */
  async settleWrite(installationId: number, member: string, what: { settle: boolean; clearStrikes: boolean }): Promise<void> {
    await this.#redis.escSettleWrite(
      this.writesKey(installationId),
      this.strikesKey(installationId),
      this.pausesKey(),
      member,
      what.settle ? 1 : 0,
      what.clearStrikes ? 1 : 0,
      installationId,
    );
  }

  /** Writes in the installation's log within the last `windowMs` (for tests and the status page). */
  async writesWithin(installationId: number, windowMs: number): Promise<number> {
    const [seconds, micros] = await this.#redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    return this.#redis.zcount(this.writesKey(installationId), now - windowMs + 1, "+inf");
  }

  /** Stops the installation's writes for `ms` (a longer pause already set stays); returns the ms left. */
  async pauseWrites(installationId: number, ms: number): Promise<number> {
    return Number(await this.#redis.escPauseWrites(this.pausesKey(), installationId, Math.max(1, Math.ceil(ms))));
  }

  /** Installations whose writes are paused now, with the ms left; pauses ended over `keptMs` ago are dropped. */
  async pausedInstallations(keptMs: number): Promise<Array<{ installationId: number; msLeft: number }>> {
    const flat = await this.#redis.escPausedInstallations(this.pausesKey(), keptMs);
    const out: Array<{ installationId: number; msLeft: number }> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ installationId: Number(flat[i]), msLeft: Number(flat[i + 1]) });
    return out;
  }

  /** Counts one more secondary-limit response in a row for the installation (forgotten after `ttlSeconds`). */
  async addWriteStrike(installationId: number, ttlSeconds: number): Promise<number> {
    const key = this.strikesKey(installationId);
    const strikes = await this.#redis.incr(key);
    await this.#redis.expire(key, ttlSeconds);
    return strikes;
  }
}
