import { describe, expect, inject, it } from "vitest";
import type { Gate } from "../../../src/domain.js";
import type { Stores } from "../../../src/store/stores.js";
import { commandsDuring } from "../../support/redisMonitor.js";
import { storeRedis } from "../../support/storeRedis.js";
import { answer, newGate, REPO } from "./support.js";

const { redis, freshStore } = storeRedis();

/** The open-repositories index as Redis holds it now. */
const indexOf = (store: Stores) => redis().hgetall(store.gates.keys.openGateRepos());

/**
 * What the index must say, counted from the open gates themselves: each open gate's installation
 * and repository (the read it replaces), and the mark that it is complete.
 */
async function countedFromOpenGates(store: Stores): Promise<Record<string, string>> {
  const out: Record<string, string> = { built: "1" };
  for (const id of await redis().zrange(store.gates.keys.openGates(), 0, -1)) {
    const [installationId, repo] = await redis().hmget(store.gates.keys.gate(id), "installationId", "repo");
    if (installationId === null || repo === null) continue;
    const field = `${installationId}:${repo}`;
    out[field] = String(Number(out[field] ?? 0) + 1);
  }
  return out;
}

/** openGateRepos reads `repos`, and the index (built by that read if it was not) is what the open gates say. */
async function expectIndexRight(store: Stores, repos: Record<number, string[]>): Promise<void> {
  const read = await store.gates.openGateRepos();
  expect(await indexOf(store)).toEqual(await countedFromOpenGates(store));
  expect(Object.fromEntries([...read].map(([installation, set]) => [installation, [...set].sort()]))).toEqual(repos);
}

const stored = async (store: Stores, id: string) => (await store.gates.getGate(id))!;

describe("GateRecords: the index of repositories with open gates", () => {
  it("follows every transition of a gate: open, answered, superseded, cancelled, reopened, claimed, finished, restored", async () => {
    const store = freshStore();
    await expectIndexRight(store, {}); // built on an empty namespace: just the mark
    const first = newGate();
    await store.gates.openGate(first);
    await store.gates.openGate(first); // a redelivery counts nothing
    await expectIndexRight(store, { 99: [REPO] });
    // Another issue of the repository, another repository, another installation.
    const sameRepo = newGate({ issue: 8 });
    const otherRepo = newGate({ repo: "Octo/Other", issue: 1 });
    const otherInstallation = newGate({ repo: "acme/widgets", issue: 1, installationId: 7 });
    for (const g of [sameRepo, otherRepo, otherInstallation]) await store.gates.openGate(g);
    expect((await indexOf(store))[`99:${REPO}`]).toBe("2");
    await expectIndexRight(store, { 99: [REPO, "Octo/Other"], 7: ["acme/widgets"] });

    // A newer question on the issue supersedes the open one: one out, one in.
    const newer = newGate();
    expect((await store.gates.openGate(newer)).superseded).toBe(first.id);
    expect((await indexOf(store))[`99:${REPO}`]).toBe("2");
    // Answered (a partial answer keeps it open), then cancelled, then superseded by hand.
    const twoQuestions = newGate({ repo: "Octo/Two", issue: 2 });
    twoQuestions.ask = { ...twoQuestions.ask, questions: [twoQuestions.ask.questions[0]!, { text: "And the TTL?", options: ["1h", "1d"] }] };
    await store.gates.openGate(twoQuestions);
    expect((await store.gates.recordAnswer(await stored(store, twoQuestions.id), answer(), "alice", 500, 5_000)).outcome).toBe("partial");
    await expectIndexRight(store, { 99: [REPO, "Octo/Other", "Octo/Two"], 7: ["acme/widgets"] });
    expect((await store.gates.recordAnswer(await stored(store, otherRepo.id), answer("alice", 501), "alice", 501, 5_000)).outcome).toBe("recorded");
    expect((await store.gates.recordAnswer(await stored(store, otherRepo.id), answer("alice", 501), "alice", 501, 5_000)).outcome).toBe("same");
    expect(await store.gates.cancelGate(otherInstallation, "closed")).toBe(true);
    expect(await store.gates.cancelGate(otherInstallation, "closed")).toBe(false);
    expect(await store.gates.supersedeGate(sameRepo, "new commits")).toBe(true);
    await expectIndexRight(store, { 99: [REPO, "Octo/Two"] });
    expect((await indexOf(store))[`99:${REPO}`]).toBe("1");

    // The answer withdrawn before its resume began: open again; claimed, finished: never open.
    expect((await store.gates.reviseAnswers(otherRepo, 501, [], 6_000)).outcome).toBe("reopened");
    await expectIndexRight(store, { 99: [REPO, "Octo/Other", "Octo/Two"] });
    await store.gates.recordAnswer(await stored(store, otherRepo.id), answer("bob", 502), "bob", 502, 7_000);
    expect(await store.gates.claimResume(otherRepo.id, "resume-job")).toBe(true);
    await store.gates.finishResume(await stored(store, otherRepo.id), 8_000);
    expect(await store.gates.markOverdue(newer.id, 9_000)).toBe(true);
    await expectIndexRight(store, { 99: [REPO, "Octo/Two"] });
    // Withdrawn when a newer question stands: superseded, not open.
    const answeredOld = newGate({ issue: 9 });
    await store.gates.openGate(answeredOld);
    await store.gates.recordAnswer(await stored(store, answeredOld.id), answer("carol", 503), "carol", 503, 5_000);
    await store.gates.openGate(newGate({ issue: 9 }));
    expect(await store.gates.reviseAnswers(answeredOld, 503, [], 6_000)).toEqual({ outcome: "reopened", state: "superseded" });
    expect((await indexOf(store))[`99:${REPO}`]).toBe("2");
    // A rebuild restores settled gates, which leave the index as it was; a lost one is restored once.
    const lost: Gate = { ...newGate({ repo: "Octo/Lost", issue: 3 }), state: "resumed", answers: [] };
    expect(await store.gates.restoreGate(lost)).toBe(true);
    expect(await store.gates.restoreGate({ ...(await stored(store, newer.id)), state: "cancelled" })).toBe(false);
    await expectIndexRight(store, { 99: [REPO, "Octo/Two"] });

    // Every gate closed, the repositories' fields are gone; the mark stays.
    for (const g of [newer, twoQuestions]) await store.gates.cancelGate(g, "closed");
    await store.gates.cancelGate((await store.gates.lastGate({ repo: REPO, issue: 9 }))!, "closed");
    expect(await indexOf(store)).toEqual({ built: "1" });
    expect(await store.gates.openGateRepos()).toEqual(new Map());
  });

  it("concurrent transitions keep the count exact", async () => {
    const store = freshStore();
    await store.gates.openGateRepos();
    const gates = Array.from({ length: 40 }, (_, i) => newGate({ issue: 100 + i }));
    await Promise.all(gates.flatMap((g) => [store.gates.openGate(g), store.gates.openGate(g)]));
    expect((await indexOf(store))[`99:${REPO}`]).toBe("40");
    await Promise.all(gates.slice(0, 25).flatMap((g) => [store.gates.cancelGate(g, "closed"), store.gates.supersedeGate(g, "edited")]));
    expect(await indexOf(store)).toEqual({ built: "1", [`99:${REPO}`]: "15" });
  });

  it("is built once from the open gates where Redis was written before it existed, then kept", async () => {
    const store = freshStore();
    // What the previous version left: open gates (some settled since) and no index.
    const gates = [newGate(), newGate({ issue: 8 }), newGate({ repo: "Octo/Other", issue: 1 }), newGate({ repo: "acme/widgets", issue: 2, installationId: 7 })];
    for (const g of gates) await store.gates.openGate(g);
    await store.gates.cancelGate(gates[1]!, "closed");
    await store.gates.recordAnswer(await stored(store, gates[2]!.id), answer(), "alice", 500, 5_000);
    expect(await redis().exists(store.gates.keys.openGateRepos())).toBe(0);
    // An open gate whose hash is gone (it was never seen by the old read either) is not counted.
    await redis().zadd(store.gates.keys.openGates(), 1, "no-such-gate");
    await expectIndexRight(store, { 99: [REPO], 7: ["acme/widgets"] });
    expect(await indexOf(store)).toEqual({ built: "1", [`99:${REPO}`]: "1", "7:acme/widgets": "1" });
    // Kept from then on, without another build.
    const later = newGate({ repo: "Octo/Later", issue: 4 });
    await store.gates.openGate(later);
    await store.gates.cancelGate(gates[0]!, "closed");
    await expectIndexRight(store, { 99: ["Octo/Later"], 7: ["acme/widgets"] });
  });

  it("is built again after Redis lost it (a wipe), from the gates opened again since", async () => {
    const store = freshStore();
    await store.gates.openGate(newGate());
    await expectIndexRight(store, { 99: [REPO] });
    const keys = await redis().keys(`${store.gates.keys.prefix}:*`);
    await redis().del(...keys);
    // The rebuild opens the lost question again before the next scheduled pass reads the index.
    const reopened = newGate({ repo: "Octo/Rebuilt", issue: 5 });
    await store.gates.openGate(reopened);
    expect(await redis().exists(store.gates.keys.openGateRepos())).toBe(0);
    await expectIndexRight(store, { 99: ["Octo/Rebuilt"] });
  });

  it("is counted afresh after a recount is asked for, whatever was left wrong in it", async () => {
    const store = freshStore();
    await store.gates.openGate(newGate());
    await store.gates.openGateRepos();
    // As a replica of an earlier version leaves it: a gate opened and one closed without counting.
    await redis().hset(store.gates.keys.openGateRepos(), { [`99:${REPO}`]: "3", "99:Octo/Gone": "1" });
    await store.gates.recountOpenGateRepos();
    await store.gates.openGate(newGate({ repo: "Octo/Meanwhile", issue: 2 }));
    await expectIndexRight(store, { 99: [REPO, "Octo/Meanwhile"] });
    expect((await indexOf(store))[`99:${REPO}`]).toBe("1");
  });

  it("is read in one command once built", async () => {
    const store = freshStore();
    for (let i = 0; i < 50; i++) await store.gates.openGate(newGate({ repo: `Octo/Repo-${i % 5}`, issue: 200 + i }));
    await store.gates.openGateRepos(); // builds it
    const commands = await commandsDuring(inject("redisUrl"), store.gates.keys.prefix, () => store.gates.openGateRepos());
    expect(commands).toEqual([{ name: "hgetall", args: [store.gates.keys.openGateRepos()], inScript: false }]);
    expect((await store.gates.openGateRepos()).get(99)?.size).toBe(5);
  });
});
