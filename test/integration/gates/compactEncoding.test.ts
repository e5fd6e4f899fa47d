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

  it("is three keys of its own, its gate and issue hashes compact, with no field for what it does not have yet", async () => {
    const store = new GateStore(redis, "parked");
    const gate = gateFixture({ id: "3000000001", repo: "acme/parked", issue: 42 });
    const ref = { repo: gate.repo, issue: gate.issue };
    // What a parked gate's records are: the issue, the round of the dispatch that asked, the open gate.
    await store.upsertIssue({ ...ref, installationId: 1, title: "Add a cache", body: "The lookups are slow; cache them.", url: "https://github.com/acme/parked/issues/42", assignees: [] });
    await store.allocateRound(ref, "dispatch-acme/parked#42-c3000000000", 10);
    await store.openGate(newGate(gate));
    const keys = (await redis.keys("parked:*")).sort();
    expect(keys).toEqual([store.keys.gate(gate.id), store.keys.openGates(), store.keys.issue(ref), store.keys.issueGates(ref)].sort());
    expect(await redis.object("ENCODING", store.keys.gate(gate.id))).toBe("listpack");
    expect(await redis.object("ENCODING", store.keys.issue(ref))).toBe("listpack");
    expect(await redis.hexists(store.keys.gate(gate.id), "answers")).toBe(0);
    expect(await redis.hexists(store.keys.issue(ref), "assignees")).toBe(0);
    expect(await store.getGate(gate.id)).toMatchObject({ state: "open", answers: [] });
    expect(await store.getIssue(ref)).toMatchObject({ assignees: [], openGate: gate.id, nextRound: 1 });
  });
});
