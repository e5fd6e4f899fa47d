import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { AgentTracker, isAlive } from "../../tools/chaos/agents.js";
import { AppProcess, RedisServer } from "../../tools/chaos/processes.js";
import { CHAOS_AGENT } from "../../tools/chaos/runner.js";
import { GitHubSimulator } from "../../tools/simulator/index.js";
import { GateRecords } from "../../src/store/gateRecords.js";
import { parseAskComment } from "../../src/protocol/ask.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { ensureBuilt } from "../support/build.js";
import { waitFor } from "../support/harness.js";

const REPO = "acme/shutdown";
const SHUTDOWN_GRACE_MS = 2000;
const KILL_GRACE_MS = 1000;

/**
 * SIGTERM to `node dist/main.js` (a deploy): no new jobs, the running agent gets SHUTDOWN_GRACE,
 * then it is stopped and its round goes back to the queue for the next app, not lost and not run
 * twice; an agent that finishes within the grace is not run again.
 */
describe("SIGTERM: graceful shutdown", () => {
  let dir: string;
  let redis: RedisServer;
  let sim: GitHubSimulator;
  let app: AppProcess | undefined;
  let tracker: AgentTracker;

  beforeAll(async () => {
    await ensureBuilt();
  }, 120_000);

  afterEach(async () => {
    await app?.kill();
    tracker?.killAll();
    await sim?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function setUp(resumeMs: number) {
    dir = mkdtempSync(join(tmpdir(), "esc-shutdown-"));
    redis = await RedisServer.start(join(dir, "redis"));
    const secret = randomBytes(8).toString("hex");
    sim = await GitHubSimulator.start({ webhookSecret: secret });
    sim.addRepo(REPO);
    sim.addUser("maintainer");
    sim.setPermission(REPO, "maintainer", "write");
    const log = join(dir, "agents.jsonl");
    writeFileSync(log, "");
    tracker = new AgentTracker(log);
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? tmpdir(),
      ...sim.appEnv(),
      HOST: "127.0.0.1",
      PORT: String(port),
      REDIS_URL: redis.url,
      REDIS_PREFIX: "shutdown",
      // The agent runs from this project's directory, which the sandbox does not show.
      AGENT_SANDBOX: "none",
      AGENT_COMMAND: JSON.stringify([process.execPath, CHAOS_AGENT, log, "{round}", "{issue}", "100", String(resumeMs)]),
      SHUTDOWN_GRACE: `${SHUTDOWN_GRACE_MS / 1000}s`,
      AGENT_KILL_GRACE: `${KILL_GRACE_MS / 1000}s`,
      RECONCILE_INTERVAL: "2s",
      LOG_FORMAT: "json",
    };
    const start = async () => {
      app = await AppProcess.start("app", port, env, join(dir, "app.log"), (pid) => tracker.appStarted(pid));
      sim.setWebhookUrl(`${app.url}/api/github/webhooks`);
    };
    await start();
    const issue = sim.createIssue(REPO, { title: "Chaos run 0", body: "Cache it.", author: "maintainer" });
    sim.comment(REPO, issue.number, "maintainer", "/agent");
    const ask = await waitFor(
      "the agent's question",
      () => sim.comments(REPO, issue.number).find((c) => c.user.login === sim.botLogin && parseAskComment(c.body)),
      30_000,
    );
    sim.comment(REPO, issue.number, "maintainer", `1. chaos-answer-${ask.id}`);
    const first = await waitFor("the resumed round's agent", () => (tracker.poll(), tracker.processes.find((p) => p.round === 1)), 30_000);
    return { start, first, gate: String(ask.id) };
  }

  /** SIGTERM now; resolves with the exit code and how long the app took to exit. */
  async function terminate(): Promise<{ code: number | null; ms: number }> {
    const started = Date.now();
    tracker.appDied(app!.pid, "SIGTERM", SHUTDOWN_GRACE_MS + KILL_GRACE_MS + 4000);
    app!.child.kill("SIGTERM");
    const { code } = await app!.exited;
    tracker.appExited(app!.pid);
    return { code, ms: Date.now() - started };
  }

  it("an agent still running after the grace is stopped, and its round is re-run by the next app", async () => {
    const { start, first, gate } = await setUp(30_000);
    const { code, ms } = await terminate();
    expect(code).toBe(0);
    expect(ms).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_MS - 200);
    tracker.poll();
    expect(first.signalledAt).toBeDefined(); // SIGTERM after the grace; the chaos agent exits on it
    expect(first.signalledAt! - first.startedAt).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_MS - 500);
    await waitFor("the stopped agent to be gone", () => !isAlive(first.pid), 5000);
    expect(tracker.violations).toEqual([]);

    await start(); // the next deploy: the round goes on from the queue, with the same round number
    const rerun = await waitFor("the round re-run", () => (tracker.poll(), tracker.processes.find((p) => p.round === 1 && p.pid !== first.pid)), 30_000);
    expect(rerun.resumes).toBe(gate);
    await app!.kill(); // not waiting 30 s for it: that it started again is the point
  }, 120_000);

  it("an agent that finishes within the grace completes its round, which is not run again", async () => {
    const { start, first, gate } = await setUp(800);
    const { code } = await terminate();
    expect(code).toBe(0);
    tracker.poll();
    expect(first.completedAt).toBeDefined();
    expect(first.signalledAt).toBeUndefined();

    await start();
    // Long enough for a re-queued job (1 s delay) and two reconciliation passes (every 2 s).
    await new Promise((r) => setTimeout(r, 6000));
    tracker.poll();
    expect(tracker.processes.filter((p) => p.round > 0)).toHaveLength(1);
    const redisClient = new Redis(redis.url);
    try {
      expect((await new GateRecords(redisClient, "shutdown").getGate(gate))?.state).toBe("resumed");
    } finally {
      redisClient.disconnect();
    }
  }, 120_000);
});
