import { randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { GitHubSimulator } from "../../../tools/simulator/index.js";
import { openStores, type Stores } from "../../../src/store/stores.js";
import { renderAskComment } from "../../../src/protocol/ask.js";
import { freePort, startPrivateRedis, type PrivateRedis } from "../../../src/redis/privateRedis.js";
import { writeRedisUrlFile } from "../../../src/redis/urlFile.js";
import { ensureBuilt } from "../../support/build.js";
import { runEscalate } from "../../support/escalateBin.js";
import { gateFixture, newGate } from "../../support/gates.js";
import { RecordingApi } from "../../support/recordingApi.js";

/**
 * The operator commands find the app's private Redis (a new port and password at every start) from
 * DATA_DIR, where the app writes its URL, when REDIS_URL is unset: a real private redis-server, the
 * real bin/escalate, an environment without REDIS_URL.
 */
let server: PrivateRedis;
let dataDir: string;
let redis: Redis;
let store: Stores;
const prefix = `pr-${randomUUID().slice(0, 8)}`;
const api = new RecordingApi();
const GATE = gateFixture({ id: "301", repo: "acme/widgets", issue: 12 });

beforeAll(async () => {
  await ensureBuilt();
  await api.start();
  dataDir = join(mkdtempSync(join(tmpdir(), "esc-cli-datadir-")), "data");
  server = await startPrivateRedis({ dataDir });
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  store = openStores(redis, prefix);
  await store.issues.upsertIssue({ repo: GATE.repo, issue: GATE.issue, installationId: 1, title: "Add a cache", body: "", url: "", assignees: [] });
  expect((await store.gates.openGate(newGate(GATE))).opened).toBe(true);
}, 120_000);

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
  await api.stop();
});

const openGateIds = (stdout: string) => (JSON.parse(stdout) as { gates: Array<{ id: string }> }).gates.map((g) => g.id);

describe("the CLI without REDIS_URL", () => {
  it("status reads the gates of the private Redis named in DATA_DIR/redis.url", async () => {
    const run = await runEscalate(["status", "--json"], { DATA_DIR: dataDir, REDIS_PREFIX: prefix });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(openGateIds(run.stdout)).toEqual(["301"]);
  });

  it("DATA_DIR defaults to data in the working directory, as the app resolves it", async () => {
    const run = await runEscalate(["status", "--json"], { REDIS_PREFIX: prefix }, { cwd: dirname(dataDir) });
    expect(run.code).toBe(0);
    expect(openGateIds(run.stdout)).toEqual(["301"]);
  });

  it("REDIS_URL, when set, wins over the file", async () => {
    // The tests' shared Redis has nothing under this prefix.
    const run = await runEscalate(["status", "--json"], { REDIS_URL: inject("redisUrl"), DATA_DIR: dataDir, REDIS_PREFIX: prefix });
    expect(run.code).toBe(0);
    expect(openGateIds(run.stdout)).toEqual([]);
  });

  it("answer finds the gate there too and posts the answer", async () => {
    api.requests = [];
    const run = await runEscalate(["answer", "301", "--choice", "2"], {
      DATA_DIR: dataDir,
      REDIS_PREFIX: prefix,
      GITHUB_TOKEN: "ghp_operator",
      GITHUB_API_URL: api.url,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /repos/acme/widgets/issues/12/comments"]);
    expect(api.bodies()).toEqual(["2"]);
  });

  it("a file left by an app that was killed is one line naming it, the password hidden, exit 1, for status and reconcile", async () => {
    const stale = mkdtempSync(join(tmpdir(), "esc-cli-stale-"));
    const port = await freePort(); // nothing listens there
    writeRedisUrlFile(stale, `redis://:hunter2-secret@127.0.0.1:${port}`);
    const run = await runEscalate(["status"], { DATA_DIR: stale });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^escalate: Could not reach Redis at /);
    expect(run.stderr).toContain(`redis://:***@127.0.0.1:${port} (from ${join(stale, "redis.url")}; is the app running?): `);
    expect(run.stderr).toContain("ECONNREFUSED");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).not.toContain("hunter2");

    // reconcile's queue connections would retry forever: it too fails at once, naming the file.
    const sim = await GitHubSimulator.start({ webhookSecret: "cli-stale-secret" });
    try {
      const started = Date.now();
      const reconcile = await runEscalate(["reconcile"], { ...sim.appEnv(), DATA_DIR: stale, RECONCILE_INTERVAL: "off" });
      expect(reconcile.code).toBe(1);
      expect(reconcile.stderr).toContain(`redis://:***@127.0.0.1:${port} (from ${join(stale, "redis.url")}; is the app running?): `);
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await sim.stop();
    }
  });

  it("run by another user than the app's, it says to run as the app's user", async () => {
    // DATA_DIR is the app's, mode 0700 with the file 0600: as root the test runs the CLI as nobody;
    // as anyone else it locks a copy of the file against itself.
    let dir = dataDir;
    let uid: number | undefined;
    if (process.getuid?.() === 0) {
      uid = 65534;
    } else {
      dir = mkdtempSync(join(tmpdir(), "esc-cli-locked-"));
      writeRedisUrlFile(dir, server.url);
      chmodSync(join(dir, "redis.url"), 0);
    }
    const run = await runEscalate(["status"], { DATA_DIR: dir }, { uid });
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr: `escalate: REDIS_URL is not set and ${join(dir, "redis.url")} cannot be used (permission denied: run this as the app's user); or set REDIS_URL to the app's Redis.\n`,
    });
  });

  it("reconcile rebuilds into that Redis", async () => {
    const sim = await GitHubSimulator.start({ webhookSecret: "cli-datadir-secret" });
    try {
      const repo = "acme/gadgets";
      sim.addRepo(repo);
      sim.addUser("octocat");
      const issue = sim.createIssue(repo, { title: "Lost webhook", body: "", author: "octocat" });
      sim.comment(
        repo,
        issue.number,
        sim.botLogin,
        renderAskComment({ v: 1, id: "lost-ask-1", kind: "question", round: 0, questions: [{ text: "Ship it?", options: ["yes", "no"] }] }),
      );
      const run = await runEscalate(["reconcile"], { ...sim.appEnv(), DATA_DIR: dataDir, REDIS_PREFIX: prefix, RECONCILE_INTERVAL: "off" });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/reopened gate \d+ that Redis had lost/);
      const gate = await store.gates.lastGate({ repo, issue: issue.number });
      expect(gate?.state).toBe("open");
      expect(gate?.ask.questions[0]?.text).toBe("Ship it?");
    } finally {
      await sim.stop();
    }
  });
});
