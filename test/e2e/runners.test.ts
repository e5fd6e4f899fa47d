import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unfinishedJobs } from "../../src/queue/queues.js";
import { openSpawnQueue } from "../../src/queue/spawnQueue.js";
import { parseAskComment } from "../../src/protocol/ask.js";
import { StatusLog } from "../../src/store/statusLog.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { AppProcess, RedisServer } from "../../tools/chaos/processes.js";
import { CHAOS_AGENT } from "../../tools/chaos/rig.js";
import { GitHubSimulator } from "../../tools/simulator/index.js";
import { waitFor } from "../support/harness.js";
import { requirePrograms } from "../support/programs.js";

const REPO = "acme/runners";
const HUMAN = "maintainer";
const PREFIX = "runners";

/** A line of the chaos agent's log (test/support/agents/chaos-agent.mjs). */
interface AgentLine {
  event: "start" | "asked" | "end" | "signal";
  issue: number;
  round: number;
  pid: number;
  /** When it was logged (ms). */
  at: number;
  /** The pids above the agent, parent first (on "start"). */
  ancestors?: number[];
}

function isAsk(body: string): boolean {
  try {
    return parseAskComment(body) !== undefined;
  } catch {
    return false;
  }
}

describe("an app and two runners that share only Redis and GitHub (ROLE=app, ROLE=runner)", { timeout: 420_000 }, () => {
  let dir: string;
  let agentLog: string;
  let redis: RedisServer;
  let client: Redis;
  let sim: GitHubSimulator;
  let app: AppProcess;
  let runners: AppProcess[] = [];

  const lines = (): AgentLine[] =>
    existsSync(agentLog)
      ? readFileSync(agentLog, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as AgentLine)
      : [];
  const logged = (issue: number, round: number, event: AgentLine["event"]) =>
    lines().filter((l) => l.issue === issue && l.round === round && l.event === event);
  /** `npm start`'s environment: the simulator as GitHub, the shared Redis, the chaos agent (round 0 asks after 0.3 s, a resumed round ends after 3 s). */
  const env = (extra: Record<string, string>): Record<string, string> => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? tmpdir(),
    ...sim.appEnv(),
    HOST: "127.0.0.1",
    REDIS_URL: redis.url,
    REDIS_PREFIX: PREFIX,
    // The agent runs from this project's directory, which the sandbox does not show.
    AGENT_SANDBOX: "none",
    AGENT_COMMAND: JSON.stringify([process.execPath, CHAOS_AGENT, agentLog, "{round}", "{issue}", "300", "3000"]),
    AGENT_CONCURRENCY: "2",
    AGENT_KILL_GRACE: "1s",
    SHUTDOWN_GRACE: "2s",
    RECONCILE_INTERVAL: "off",
    LOG_LEVEL: "info",
    ...extra,
  });
  const startRunner = async (name: string, extra: Record<string, string> = {}) => {
    const port = await freePort();
    const own = join(dir, name);
    const runnerEnv = { ROLE: "runner", RUNNER_NAME: name, PORT: String(port), DATA_DIR: join(own, "data"), WORKSPACE_ROOT: join(own, "workspaces"), ...extra };
    return AppProcess.start(name, port, env(runnerEnv), join(dir, `${name}.log`));
  };
  /** Answers each question as it appears on `issues`, until every one has been answered once. */
  const answerEach = (issues: number[]) => {
    const answered = new Set<number>();
    return waitFor(
      `a question on each of ${issues.length} issue(s), answered`,
      async () => {
        for (const issue of issues) {
          if (answered.has(issue)) continue;
          const ask = sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && isAsk(c.body));
          // As soon as it shows: an answer handled before its question is read when the question opens.
          if (!ask) continue;
          sim.comment(REPO, issue, HUMAN, `1. chaos-answer-${ask.id}`);
          answered.add(issue);
        }
        return answered.size === issues.length || undefined;
      },
      180_000,
    );
  };
  /** A new issue dispatched and answered, its resumed agent running: the runner holding it, and the other. */
  const resumedOnARunner = async (title: string) => {
    const issue = sim.createIssue(REPO, { title, body: "Add a cache.", author: HUMAN }).number;
    sim.comment(REPO, issue, HUMAN, "/agent");
    await answerEach([issue]);
    const first = await waitFor("the resumed agent running", () => logged(issue, 1, "start")[0], 60_000);
    const holder = runners.find((r) => first.ancestors?.includes(r.pid))!;
    return { issue, first, holder, other: runners.find((r) => r !== holder)! };
  };
  const metrics = async (process: AppProcess) => (await (await fetch(`${process.url}/metrics`)).text()).split("\n");
  const nothingQueued = async () => {
    const spawn = openSpawnQueue(client, PREFIX);
    try {
      return (await unfinishedJobs(spawn)) === 0;
    } finally {
      await spawn.close();
    }
  };

  beforeAll(async () => {
    requirePrograms("redis-server");
    dir = mkdtempSync(join(tmpdir(), "escalation-runners-"));
    agentLog = join(dir, "agents.log");
    redis = await RedisServer.start(join(dir, "redis"));
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    sim = await GitHubSimulator.start({ webhookSecret: randomBytes(16).toString("hex") });
    sim.addRepo(REPO);
    sim.addUser(HUMAN);
    sim.setPermission(REPO, HUMAN, "write");
    const port = await freePort();
    app = await AppProcess.start("app", port, env({ ROLE: "app", PORT: String(port), DATA_DIR: join(dir, "app") }), join(dir, "app.log"));
    sim.setWebhookUrl(`${app.url}/api/github/webhooks`);
    runners = [await startRunner("runner-a"), await startRunner("runner-b")];
    // Three processes to start, each up to a minute on a busy machine (AppProcess's own bound).
  }, 200_000);

  afterAll(async () => {
    for (const process of [app, ...runners]) await process?.kill();
    client?.disconnect();
    await sim?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("a runner serves no webhook, and /healthz names each process's role, the runner, and the runners connected", async () => {
    const webhook = await fetch(`${runners[0]!.url}/api/github/webhooks`, { method: "POST", body: "{}" });
    expect(webhook.status).toBe(404);
    const health = (await (await fetch(`${app.url}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ ok: true, role: "app", runners: ["runner-a", "runner-b"] });
    expect(health).not.toHaveProperty("runner");
    expect(await (await fetch(`${runners[1]!.url}/healthz`)).json()).toMatchObject({ ok: true, role: "runner", runner: "runner-b" });
    expect(await metrics(app)).toEqual(expect.arrayContaining(["escalation_runners 2", 'escalation_rounds_running{runner="runner-a"} 0']));
  });

  it("20 issues asked and answered: every agent a descendant of a runner, never of the app; each answer resumes its agent once", async () => {
    const issues = Array.from({ length: 20 }, (_, i) => sim.createIssue(REPO, { title: `Chaos run ${i}`, body: "Add a cache.", author: HUMAN }).number);
    for (const issue of issues) sim.comment(REPO, issue, HUMAN, "/agent");
    await answerEach(issues);
    await waitFor("every resumed round finished", () => issues.every((issue) => logged(issue, 1, "end").length > 0) || undefined, 180_000);
    await waitFor("no round left queued or running", nothingQueued, 30_000);
    for (const issue of issues) {
      expect(logged(issue, 0, "start"), `#${issue} round 0`).toHaveLength(1);
      expect(logged(issue, 1, "start"), `#${issue} round 1`).toHaveLength(1);
      expect(logged(issue, 1, "end"), `#${issue} round 1`).toHaveLength(1);
    }
    const starts = lines().filter((l) => l.event === "start");
    expect(starts).toHaveLength(40);
    const runnerOf = (line: AgentLine) => runners.find((r) => line.ancestors?.includes(r.pid))?.name;
    for (const start of starts) {
      expect(start.ancestors, `agent ${start.pid}`).not.toContain(app.pid);
      expect(runnerOf(start), `agent ${start.pid}`).toBeDefined();
    }
    expect(new Set(starts.map(runnerOf))).toEqual(new Set(["runner-a", "runner-b"]));
    // The round's status line (logged, shown at the status comment's next render) names the runner that ran it.
    const status = await new StatusLog(client, PREFIX).statusLines({ repo: REPO, issue: issues[0]! });
    const runner = runnerOf(logged(issues[0]!, 1, "start")[0]!);
    expect(status).toContainEqual(expect.stringMatching(new RegExp(`round 1: agent started with the answer of @maintainer to gate \\d+ on runner ${runner}$`)));
  });

  it("SIGKILL of the runner holding a round: its agent is stopped, and the other runner finishes the round, once", async () => {
    const { issue, first, holder, other } = await resumedOnARunner("Chaos run 20");
    expect(logged(issue, 1, "end")).toEqual([]);
    expect(await metrics(app)).toContain(`escalation_rounds_running{runner="${holder.name}"} 1`);
    await holder.kill();
    // The orphan watchdog stops the agent; BullMQ's stalled-job check hands the round to the other runner.
    await waitFor("the killed runner's agent stopped", () => logged(issue, 1, "signal").some((l) => l.pid === first.pid) || undefined, 30_000);
    await waitFor("the round finished on the other runner", () => logged(issue, 1, "end").length > 0 || undefined, 90_000);
    await waitFor("no round left queued or running", nothingQueued, 30_000);
    const starts = logged(issue, 1, "start");
    expect(starts).toHaveLength(2);
    expect(starts[1]!.ancestors).toContain(other.pid);
    expect(logged(issue, 1, "end")).toHaveLength(1);
    expect(logged(issue, 1, "end")[0]!.pid).toBe(starts[1]!.pid);
    // The status comment's log shows both starts: the one on the runner that died, and the one taken up.
    const status = (await new StatusLog(client, PREFIX).statusLines({ repo: REPO, issue })).filter((line) => line.includes("round 1: agent started"));
    expect(status).toEqual([
      expect.stringMatching(new RegExp(`on runner ${holder.name}$`)),
      expect.stringMatching(new RegExp(`on runner ${other.name} \\(started again: the earlier start did not finish\\)$`)),
    ]);
  });

  it("SIGTERM of the runner holding a round: its agent gets SHUTDOWN_GRACE, the runner exits, and the round, put back without using an attempt, finishes once on the other", async () => {
    // Two runners whose resumed rounds outlast a 1 s SHUTDOWN_GRACE by far.
    for (const runner of runners) await runner.terminate();
    const slow = { SHUTDOWN_GRACE: "1s", AGENT_COMMAND: JSON.stringify([process.execPath, CHAOS_AGENT, agentLog, "{round}", "{issue}", "300", "8000"]) };
    runners = [await startRunner("runner-c", slow), await startRunner("runner-d", slow)];
    const { issue, first, holder, other } = await resumedOnARunner("Chaos run 21");
    const terminatedAt = Date.now();
    await holder.terminate();
    // The agent was told to stop once the grace had passed, and did not finish.
    const signalled = logged(issue, 1, "signal").find((l) => l.pid === first.pid);
    expect(signalled?.at).toBeGreaterThanOrEqual(terminatedAt + 900);
    expect(logged(issue, 1, "end")).toEqual([]);
    await waitFor("the round finished on the other runner", () => logged(issue, 1, "end").length > 0 || undefined, 90_000);
    await waitFor("no round left queued or running", nothingQueued, 30_000);
    const starts = logged(issue, 1, "start");
    expect(starts).toHaveLength(2);
    expect(starts[1]!.ancestors).toContain(other.pid);
    expect(logged(issue, 1, "end")).toEqual([expect.objectContaining({ pid: starts[1]!.pid })]);
    // Put back with moveToDelayed: started twice, and no attempt used (BullMQ counts the completion itself as one made).
    const spawn = openSpawnQueue(client, PREFIX);
    try {
      const job = (await spawn.getCompleted()).find((j) => j.data.issue === issue && j.id?.startsWith("resume-"));
      expect(job).toMatchObject({ attemptsMade: 1, attemptsStarted: 2, processedBy: other.name });
    } finally {
      await spawn.close();
    }
  });
});
