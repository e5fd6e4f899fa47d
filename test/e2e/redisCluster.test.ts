import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitHubSimulator } from "../../tools/simulator/index.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { ensureBuilt } from "../support/build.js";
import { runEscalate } from "../support/escalateBin.js";
import { WEBHOOK_SECRET } from "../support/harness.js";
import { adminClient, startCluster, type ClusterSetup } from "../support/redisTopologies.js";

const REFUSAL =
  /Redis Cluster is not supported: the gate store's Lua scripts build keys from their arguments, which a cluster cannot route to one slot\. Use a single Redis server \(redis:\/\/\) or Sentinel for failover \(redis\+sentinel:\/\/\)\./;

/**
 * A REDIS_URL naming a node of a Redis Cluster (three masters made one by redis-cli --cluster
 * create): the app as `npm start` runs it and `escalate status` both refuse it, in one line, before
 * writing anything.
 */
describe("Redis Cluster", () => {
  let cluster: ClusterSetup;
  let sim: GitHubSimulator;
  let url: string;

  beforeAll(async () => {
    await ensureBuilt();
    cluster = await startCluster();
    sim = await GitHubSimulator.start({ webhookSecret: WEBHOOK_SECRET });
    url = `redis://:${cluster.password}@127.0.0.1:${cluster.ports[0]}`;
  }, 90_000);
  afterAll(async () => {
    await sim?.stop();
    await cluster?.stop();
  }, 30_000);

  it("is refused at the app's start with the reason and what to use instead, and nothing is written", async () => {
    const child = spawn(process.execPath, [resolve("dist/main.js")], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(await freePort()),
        HOST: "127.0.0.1",
        LOG_FORMAT: "json",
        AGENT_SANDBOX: "none",
        ...sim.appEnv(),
        REDIS_URL: url,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^RedisClusterUnsupportedError: /);
    expect(lines[0]).toMatch(REFUSAL);
    expect(stdout + stderr).not.toContain(cluster.password);
    // Refused before the first key: no node holds anything of the app's.
    for (const port of cluster.ports) {
      const node = adminClient(port, cluster.password);
      try {
        expect(await node.dbsize()).toBe(0);
      } finally {
        node.disconnect();
      }
    }
  }, 60_000);

  it("is refused by escalate status likewise", async () => {
    const run = await runEscalate(["status"], { REDIS_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toMatch(new RegExp(`^escalate: ${REFUSAL.source}$`));
    expect(run.stdout + run.stderr).not.toContain(cluster.password);
  }, 60_000);
});
