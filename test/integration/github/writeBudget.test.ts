import { describe, expect, it } from "vitest";
import { WriteBudget } from "../../../src/github/writeBudget.js";
import { storeRedis } from "../../support/storeRedis.js";

const { freshStore, redis } = storeRedis();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the write budget in Redis (per installation, shared by replicas)", () => {
  it("grants up to the per-minute budget, then says how long until a slot frees", async () => {
    const store = freshStore();
    const budget = new WriteBudget(store.writeBudgetLog, { perMinute: 3, minuteMs: 1000, perHour: 100, hourMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      const grant = await budget.take(7);
      expect(grant.granted).toBe(true);
      if (grant.granted) await budget.sent(7, grant.ticket);
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
    const budget = new WriteBudget(store.writeBudgetLog, { perMinute: 100, minuteMs: 60_000, perHour: 1000, hourMs: 3_600_000 }, () => 0);
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
    // A write that went through starts the backoff afresh.
    await budget.succeeded(5);
    expect(await store.writeBudgetLog.addWriteStrike(5, 60)).toBe(1);
  });
});
