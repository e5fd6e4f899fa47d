import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Gate } from "../../src/domain.js";
import { parseAskComment } from "../../src/protocol/ask.js";
import { ensureBuilt } from "../support/build.js";
import { runEscalate } from "../support/escalateBin.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";
import { adminClient, startSentinelSetup, type SentinelSetup } from "../support/redisTopologies.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");

/**
 * REDIS_URL=redis+sentinel://…: the whole loop and `escalate status` on a master found through two
 * Sentinels. After the master fails over to its replica (by SENTINEL FAILOVER, then by the death of
 * the new master), the app's store and its BullMQ workers go on with the promoted server: the gate
 * recorded before each failover is answered and resumed after it.
 */
describe("Redis through Sentinel", () => {
  let setup: SentinelSetup;
  let loop: Loop;
  let out: string;

  beforeAll(async () => {
    await ensureBuilt();
    setup = await startSentinelSetup();
    out = mkdtempSync(join(tmpdir(), "esc-sentinel-agent-"));
    loop = await startLoop({ REDIS_URL: setup.url, AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask"]) });
  }, 60_000);
  afterAll(async () => {
    await loop?.close();
    await setup?.stop();
    if (out) rmSync(out, { recursive: true, force: true });
  }, 60_000);

  /** Dispatches round 0 on a new issue and returns the gate of its agent's question, as the store holds it. */
  async function askedGate(title: string): Promise<Gate> {
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title, body: "Cache the expensive lookups.", author: "maintainer" });
    sim.comment(REPO, issue.number, "maintainer", "/agent");
    await waitFor(
      "the agent's ask comment",
      () => sim.comments(REPO, issue.number).find((c) => c.user.login === sim.botLogin && parseAskComment(c.body) !== undefined),
      30_000,
    );
    await waitFor("the awaiting-human label", () => sim.issue(REPO, issue.number).labels.includes("awaiting-human"), 30_000);
    const [gate] = await waitFor("the recorded gate", async () => {
      const gates = await loop.app.services.gates.issueGates({ repo: REPO, issue: issue.number });
      return gates.length > 0 ? gates : undefined;
    });
    expect(gate!.state).toBe("open");
    return gate!;
  }

  /** The gate, recorded before the failover, is read from the new master, answered, and its round resumed. */
  async function answeredAfterFailover(gate: Gate): Promise<void> {
    const store = loop.app.services;
    await waitFor("the store to read the gate after the failover", async () => (await store.gates.getGate(gate.id))?.state === "open", 30_000);
    // A webhook that arrives while the app's connections switch gets a 5xx (GitHub may redeliver
    // it): the reply comes once /healthz says the store and every queue answer again.
    await waitFor("the app's /healthz after the failover", async () => (await fetch(`${loop.app.url}/healthz`)).ok, 30_000);
    const before = loop.sim.deliveries.length;
    loop.sim.comment(REPO, gate.issue, "maintainer", "SQLite");
    await waitFor("the reply's webhook accepted", () => loop.sim.deliveries.slice(before).find((d) => d.event === "issue_comment" && d.status === 200), 30_000);
    await waitFor(
      `round 1 of issue ${gate.issue}, resumed after the failover`,
      () =>
        readdirSync(out).some((f) => f.startsWith("round-1-") && JSON.parse(readFileSync(join(out, f), "utf8")).env.ESCALATION_ISSUE === String(gate.issue)),
      30_000,
    );
    const answered = await waitFor(
      "the gate answered",
      async () => {
        const current = await store.gates.getGate(gate.id);
        return current?.state !== "open" ? current : undefined;
      },
      30_000,
    );
    expect(answered.answers.map((a) => a.option ?? a.text)).toContain("SQLite");
  }

  /** Waits until the master on `port` holds the gate and one replica has it too (replication is asynchronous). */
  async function replicated(port: number, gate: Gate): Promise<void> {
    const master = adminClient(port, setup.password);
    try {
      expect(await master.exists(loop.app.services.gates.keys.gate(gate.id))).toBe(1);
      expect(Number(await master.call("WAIT", "1", "10000"))).toBeGreaterThanOrEqual(1);
    } finally {
      master.disconnect();
    }
  }

  it("runs a round through the Sentinel URL, and keeps the recorded gate and the queues across SENTINEL FAILOVER", async () => {
    expect(loop.config.redisUrl).toBe(setup.url);
    const gate = await askedGate("Add a cache");
    await replicated(setup.masterPort, gate);

    const sentinel = adminClient(setup.sentinelPorts[1]!, setup.sentinelPassword);
    const demoted = adminClient(setup.masterPort, setup.password);
    const promoted = adminClient(setup.replicaPort, setup.password);
    try {
      await sentinel.call("SENTINEL", "FAILOVER", setup.masterName);
      await waitFor("the Sentinels to name the replica as master", async () => (await setup.currentMasterPort()) === setup.replicaPort, 30_000);
      await waitFor("the old master to be a replica", async () => /^role:slave$/m.test(await demoted.info("replication")), 30_000);

      // The operator's command finds the new master through the same URL, and says nothing secret.
      const status = await runEscalate(["status", "--json"], { REDIS_URL: setup.url, REDIS_PREFIX: loop.config.redisPrefix });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout).gates.map((g: { id: string }) => g.id)).toEqual([gate.id]);
      expect(status.stdout + status.stderr).not.toMatch(new RegExp(`${setup.password}|${setup.sentinelPassword}`));

      await answeredAfterFailover(gate);
      // Written to the promoted server, which is the master.
      expect(/^role:master$/m.test(await promoted.info("replication"))).toBe(true);
      expect(await promoted.hget(loop.app.services.gates.keys.gate(gate.id), "state")).not.toBe("open");
    } finally {
      sentinel.disconnect();
      demoted.disconnect();
      promoted.disconnect();
    }
  }, 90_000);

  it("goes on after the master dies: the Sentinels promote its replica and the gate recorded before is answered", async () => {
    // After the test above the first replica is the master; the first master, its replica.
    const current = await setup.currentMasterPort();
    const survivor = current === setup.masterPort ? setup.replicaPort : setup.masterPort;
    const gate = await askedGate("Add a second cache");
    await replicated(current, gate);

    await setup.killServer(current);
    await waitFor("the Sentinels to promote the survivor", async () => (await setup.currentMasterPort()) === survivor, 45_000);
    await answeredAfterFailover(gate);
  }, 90_000);
});
