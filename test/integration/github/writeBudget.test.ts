import { describe, expect, it } from "vitest";
import { WriteBudget } from "../../../src/github/writeBudget.js";
import { storeRedis } from "../../support/storeRedis.js";

const { freshStore, redis } = storeRedis();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the write budget in Redis (per installation, shared by replicas)", () => {
  it("grants up to the per-minute budget, then says how long until a slot frees", async () => {
    const store = freshStore();
    const budget = new WriteBudget(store.writeBudgetLog, { perMinute: 3, minuteMs: 1000, perHour: 100, hourMs: 60_000 }, { sendSlackMs: 0 });
    for (let i = 0; i < 3; i++) {
      const grant = await budget.take(7);
      expect(grant.granted).toBe(true);
      if (grant.granted) await budget.sent(7, grant, true);
    }
    const refused = await budget.take(7);
    expect(refused).toMatchObject({ granted: false, reason: "minute" });
    if (!refused.granted) {
      expect(refused.waitMs).toBeGreaterThan(0);
      expect(refused.waitMs).toBeLessThanOrEqual(1000);
    }
    // Another installation has a budget of its own.
    expect((await budget.take(8)).granted).toBe(true);
    await sleep(1050);
    expect((await budget.take(7)).granted).toBe(true);
  });

  it("the hour holds however the minutes go, and writes put off are told to come back one after the other", async () => {
    const store = freshStore();
    const budget = new WriteBudget(store.writeBudgetLog, { perMinute: 100, minuteMs: 1000, perHour: 4, hourMs: 2000 });
    for (let i = 0; i < 4; i++) expect((await budget.take(1)).granted).toBe(true);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const grant = await budget.take(1);
      expect(grant).toMatchObject({ granted: false, reason: "hour" });
      if (!grant.granted) waits.push(grant.waitMs);
    }
    // Spaced at the hour's pace (2000 ms / 4 = 500 ms), not all at the moment the first slot frees.
    for (let i = 1; i < waits.length; i++) expect(waits[i]! - waits[i - 1]!).toBeGreaterThanOrEqual(450);
    expect(await store.writeBudgetLog.writesWithin(1, 2000)).toBe(4);
  });

  it("keeps the log of writes no longer than the hour's budget: writes older than the hour are trimmed once it is full", async () => {
    const store = freshStore();
    const budget = new WriteBudget(store.writeBudgetLog, { perMinute: 100, minuteMs: 1000, perHour: 3, hourMs: 60_000 });
    const [seconds] = await redis().time();
    const twoHoursAgo = Number(seconds) * 1000 - 2 * 3600_000;
    await redis().zadd(store.writeBudgetLog.writesKey(1), twoHoursAgo, "old-1", twoHoursAgo + 1, "old-2", twoHoursAgo + 2, "old-3");
    // The log is full, but of writes older than the hour: they go, and the write is granted.
    expect((await budget.take(1)).granted).toBe(true);
    expect(await redis().zrange(store.writeBudgetLog.writesKey(1), 0, -1)).toHaveLength(1);
  });

  it("GitHub's pause stops every write of the installation, is listed while it lasts, and backs off when repeated", async () => {
    const store = freshStore();
    const budget = new WriteBudget(store.writeBudgetLog, { perMinute: 100, minuteMs: 60_000, perHour: 1000, hourMs: 3_600_000 }, { random: () => 0 });
    const first = await budget.limited(5, { kind: "secondary", retryAfterSeconds: 1 });
    expect(first).toBeGreaterThan(900);
    expect(first).toBeLessThanOrEqual(1000);
    expect(await budget.take(5)).toMatchObject({ granted: false, reason: "paused" });
    expect((await budget.take(6)).granted).toBe(true);
    expect(await budget.paused()).toEqual([{ installationId: 5, secondsLeft: 1 }]);
    await sleep(1050);
    expect(await budget.paused()).toEqual([]);
    // Limited again right away: twice as long.
    const second = await budget.limited(5, { kind: "secondary", retryAfterSeconds: 1 });
    expect(second).toBeGreaterThan(1900);
    await store.writeBudgetLog.pauseWrites(5, 10); // a shorter pause never shortens a longer one
    expect((await budget.paused())[0]?.secondsLeft).toBe(2);
    // A write that went through once the pause ended starts the backoff afresh, and the ended pause goes.
    await sleep(2050);
    const grant = await budget.take(5);
    expect(grant).toMatchObject({ granted: true, limited: true });
    if (grant.granted) await budget.sent(5, grant, true);
    expect(await redis().zscore(store.writeBudgetLog.pausesKey(), "5")).toBeNull();
    expect(await store.writeBudgetLog.addWriteStrike(5, 60)).toBe(1);
  });

  it("a write sent within its grant's slack costs one call and counts to the slack's end; one sent later counts from when it went; a failed one keeps the strikes", async () => {
    const store = freshStore();
    const budget = new WriteBudget(store.writeBudgetLog, { perMinute: 100, minuteMs: 60_000, perHour: 1000, hourMs: 3_600_000 }, { sendSlackMs: 300 });
    const key = store.writeBudgetLog.writesKey(3);
    const redisNow = async () => {
      const [seconds, micros] = await redis().time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    const quick = await budget.take(3);
    const grantedAt = await redisNow();
    if (!quick.granted) throw new Error("not granted");
    expect(quick.limited).toBe(false);
    const logged = Number(await redis().zscore(key, quick.ticket));
    expect(logged).toBeGreaterThanOrEqual(grantedAt + 300 - 50);
    expect(logged).toBeLessThanOrEqual(grantedAt + 300);
    await budget.sent(3, quick, true);
    expect(Number(await redis().zscore(key, quick.ticket))).toBe(logged);

    const late = await budget.take(3);
    if (!late.granted) throw new Error("not granted");
    await sleep(400);
    await budget.sent(3, late, true);
    const sentAt = await redisNow();
    const settled = Number(await redis().zscore(key, late.ticket));
    expect(settled).toBeGreaterThan(sentAt - 100);
    expect(settled).toBeLessThanOrEqual(sentAt);

    // Limited, and a write granted after the pause fails: the strike stays, and the next limit backs off longer.
    const first = await budget.limited(3, { kind: "secondary", retryAfterSeconds: 1 });
    await sleep(first + 50);
    const failing = await budget.take(3);
    if (!failing.granted) throw new Error("not granted");
    await budget.sent(3, failing, false);
    expect(await store.writeBudgetLog.addWriteStrike(3, 60)).toBe(2);
  });
});
