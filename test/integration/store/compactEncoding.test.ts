import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../../../src/redis/privateRedis.js";
import { openStores } from "../../../src/store/stores.js";
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
    const store = openStores(redis, "compact");
    const gate = gateFixture({
      id: "1001",
      ask: { questions: [{ text: "Which database should the cache use, given the read-heavy load?", options: ["Postgres", "SQLite"], default: "SQLite" }] },
    });
    expect(JSON.stringify(gate.ask).length).toBeGreaterThan(64);
    await store.gates.openGate(newGate(gate));
    expect(await redis.object("ENCODING", store.gates.keys.gate(gate.id))).toBe("listpack");
    expect(await store.gates.getGate(gate.id)).toMatchObject({ id: "1001", ask: gate.ask });
  });

  it("is three keys of its own, its gate and issue hashes compact, with no field for what it does not have yet", async () => {
    const store = openStores(redis, "parked");
    const gate = gateFixture({ id: "3000000001", repo: "acme/parked", issue: 42 });
    const ref = { repo: gate.repo, issue: gate.issue };
    // What a parked gate's records are: the issue, the round of the dispatch that asked, the open gate.
    await store.issues.upsertIssue({
      ...ref,
      installationId: 1,
      title: "Add a cache",
      body: "The lookups are slow; cache them.",
      url: "https://github.com/acme/parked/issues/42",
      assignees: [],
    });
    await store.rounds.allocateRound(ref, "dispatch-acme/parked#42-c3000000000", 10);
    await store.gates.openGate(newGate(gate));
    const keys = (await redis.keys("parked:*")).sort();
    expect(keys).toEqual([store.gates.keys.gate(gate.id), store.gates.keys.openGates(), store.issues.key(ref), store.gates.keys.issueGates(ref)].sort());
    expect(await redis.object("ENCODING", store.gates.keys.gate(gate.id))).toBe("listpack");
    expect(await redis.object("ENCODING", store.issues.key(ref))).toBe("listpack");
    expect(await redis.hexists(store.gates.keys.gate(gate.id), "answers")).toBe(0);
    expect(await redis.hexists(store.issues.key(ref), "assignees")).toBe(0);
    expect(await store.gates.getGate(gate.id)).toMatchObject({ state: "open", answers: [] });
    expect(await store.issues.getIssue(ref)).toMatchObject({ assignees: [], openGate: gate.id, nextRound: 1 });
  });
});
