import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GateStore } from "../../../src/gates/store.js";
import { startPrivateRedis, type PrivateRedis } from "../../../src/redis/privateRedis.js";
import { gateFixture, newGate } from "../../support/gates.js";

let server: PrivateRedis;
let redis: Redis;
beforeAll(async () => {
  server = await startPrivateRedis(); // the app's own, as `npm start` runs it without REDIS_URL
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

describe("a parked gate on the app's private Redis", () => {
  it("keeps Redis's compact hash encoding although its ask is longer than Redis's default 64 bytes", async () => {
    const store = new GateStore(redis, "compact");
    const gate = gateFixture({ id: "1001", ask: { questions: [{ text: "Which database should the cache use, given the read-heavy load?", options: ["Postgres", "SQLite"], default: "SQLite" }] } });
    expect(JSON.stringify(gate.ask).length).toBeGreaterThan(64);
    await store.openGate(newGate(gate));
    expect(await redis.object("ENCODING", store.keys.gate(gate.id))).toBe("listpack");
    expect(await store.getGate(gate.id)).toMatchObject({ id: "1001", ask: gate.ask });
  });
});
