import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAskComment } from "../../src/protocol/ask.js";
import { ensureBuilt } from "../support/build.js";
import { runEscalate } from "../support/escalateBin.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";
import { adminClient, startSentinelSetup, type SentinelSetup } from "../support/redisTopologies.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");

/**
 * REDIS_URL=redis+sentinel://…: the whole loop and `escalate status` on a master found through two Sentinels, and after
 * the master fails over to its replica the app's store and its BullMQ workers go on with the new
 * master: the gate recorded before the failover is answered and resumed after it.
 */
describe("Redis through Sentinel", () => {
  let setup: SentinelSetup;
  let loop: Loop | undefined;

  beforeAll(async () => {
    await ensureBuilt();
    setup = await startSentinelSetup();
  }, 60_000);
  afterAll(async () => {
    await loop?.close();
    await setup?.stop();
  }, 60_000);

  it("runs a round through the Sentinel URL, and keeps the recorded gate and the queues across a failover", async () => {
    const out = mkdtempSync(join(tmpdir(), "esc-sentinel-agent-"));
    loop = await startLoop({ REDIS_URL: setup.url, AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask"]) });
    const { sim } = loop;
    expect(loop.config.redisUrl).toBe(setup.url);

    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache the expensive lookups.", author: "maintainer" });
    sim.comment(REPO, issue.number, "maintainer", "/agent");
    await waitFor("the agent's ask comment", () => sim.comments(REPO, issue.number).find((c) => c.user.login === sim.botLogin && parseAskComment(c.body) !== undefined), 30_000);
    await waitFor("the awaiting-human label", () => sim.issue(REPO, issue.number).labels.includes("awaiting-human"), 30_000);
    const [gate] = await waitFor("the recorded gate", async () => {
      const gates = await loop!.app.services.store.issueGates({ repo: REPO, issue: issue.number });
      return gates.length > 0 ? gates : undefined;
    });
    expect(gate!.state).toBe("open");

    // The gate lives on the master the Sentinels named, and has reached the replica: an
    // asynchronous replica may miss the last writes before a failover (README, "Redis with failover").
    const master = adminClient(setup.masterPort, setup.password);
    const replica = adminClient(setup.replicaPort, setup.password);
    const sentinel = adminClient(setup.sentinelPorts[1]!, setup.sentinelPassword);
    try {
      const gateKey = loop.app.services.store.keys.gate(gate!.id);
      expect(await master.exists(gateKey)).toBe(1);
      expect(Number(await master.call("WAIT", "1", "10000"))).toBeGreaterThanOrEqual(1);
      expect(await replica.exists(gateKey)).toBe(1);

      await sentinel.call("SENTINEL", "FAILOVER", setup.masterName);
      await waitFor("the Sentinels to name the replica as master", async () => (await setup.currentMasterPort()) === setup.replicaPort, 30_000);
      await waitFor("the old master to be a replica", async () => /^role:slave$/m.test(await master.info("replication")), 30_000);

      // The app's store reads the gate from the new master, and its webhook queue and workers
      // take the answer there: the resumed round runs.
      await waitFor("the store to read the gate after the failover", async () => (await loop!.app.services.store.getGate(gate!.id))?.state === "open", 30_000);
      // The operator's command finds the new master through the same URL, and says nothing secret.
      const status = await runEscalate(["status", "--json"], { REDIS_URL: setup.url, REDIS_PREFIX: loop.config.redisPrefix });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout).gates.map((g: { id: string }) => g.id)).toEqual([gate!.id]);
      expect(status.stdout + status.stderr).not.toMatch(new RegExp(`${setup.password}|${setup.sentinelPassword}`));
      sim.comment(REPO, issue.number, "maintainer", "SQLite");
      await waitFor("round 1, resumed after the failover", () => readdirSync(out).some((f) => f.startsWith("round-1-")), 30_000);
      await waitFor("the gate answered on the new master", async () => (await loop!.app.services.store.getGate(gate!.id))?.state !== "open", 30_000);
      const answered = await loop.app.services.store.getGate(gate!.id);
      expect(answered?.answers.map((a) => a.option ?? a.text)).toContain("SQLite");
      // Written to the promoted server, not to the demoted one (a replica refuses writes anyway).
      expect(/^role:master$/m.test(await replica.info("replication"))).toBe(true);
      expect(await replica.hget(gateKey, "state")).not.toBe("open");
    } finally {
      master.disconnect();
      replica.disconnect();
      sentinel.disconnect();
    }
  }, 90_000);
});
