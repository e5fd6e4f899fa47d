import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../../tools/chaos/agents.js";
import { GitHubSimulator } from "../../tools/simulator/index.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { ensureBuilt } from "../support/build.js";
import { REPO, WEBHOOK_SECRET, waitFor } from "../support/harness.js";
import { requirePrograms } from "../support/programs.js";

beforeAll(() => requirePrograms("bwrap", "socat", "nsenter", "redis-server"));

const SLOW_STOP_AGENT = resolve("test/support/agents/slow-stop-agent.mjs");
/** Lines the app may log between a Ctrl-C and its exit: "shutting down" and a few of its parts'. */
const HANDFUL = 6;

/** One process as /proc shows it; undefined once it is gone (or a zombie). */
function procStat(pid: number): { pid: number; ppid: number; pgid: number; comm: string; startTime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" ");
    const [state, ppid, pgid] = fields;
    if (state === "Z" || state === "X") return undefined;
    // Field 22, the start time, tells a process from a later one that got its pid.
    return { pid, ppid: Number(ppid), pgid: Number(pgid), comm: stat.slice(stat.indexOf("(") + 1, close), startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

function allProcesses() {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => procStat(Number(name)))
    .filter((p) => p !== undefined);
}

/** Every live process descended from `root` (children, their children, …). */
function descendants(root: number) {
  const all = allProcesses();
  const found: typeof all = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

const inGroup = (pgid: number) => allProcesses().filter((p) => p.pgid === pgid);

interface Launched {
  child: ChildProcess;
  pid: number;
  dataDir: string;
  output: () => string;
  /** Every process of the app's seen so far (pid → start time), for the clean-up after a failed test. */
  seen: Map<number, string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/**
 * Ctrl-C in a terminal: SIGINT to every process of the foreground process group. `node dist/main.js`
 * runs here as a terminal's shell would run `npm start`, leading a process group of its own, without
 * REDIS_URL, so it starts its private redis-server.
 */
describe("Ctrl-C on `npm start` with the private Redis", () => {
  let sim: GitHubSimulator;
  const launched: Launched[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    sim = await GitHubSimulator.start({ webhookSecret: WEBHOOK_SECRET });
    sim.addRepo(REPO);
    sim.addUser("maintainer");
    sim.setPermission(REPO, "maintainer", "write");
  }, 120_000);

  afterEach(() => {
    // A failed assertion must not leave an app, its Redis or an agent running.
    for (const app of launched.splice(0)) {
      processesOf(app);
      for (const [pid, startTime] of app.seen) if (procStat(pid)?.startTime === startTime) process.kill(pid, "SIGKILL");
      if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL");
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  afterAll(async () => {
    await sim?.stop();
  });

  async function launch(env: Record<string, string> = {}): Promise<Launched> {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "esc-ctrlc-"));
    dirs.push(dataDir);
    let output = "";
    const child = spawn(process.execPath, [resolve("dist/main.js")], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...sim.appEnv(),
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_FORMAT: "json",
        // The agent runs from this project's directory, which the sandbox does not show.
        AGENT_SANDBOX: "none",
        AGENT_WORKSPACE: "off",
        SHUTDOWN_GRACE: "2s",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group, as a terminal's foreground job
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((done) =>
      child.once("exit", (code, signal) => done({ code, signal, at: Date.now() })),
    );
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const app: Launched = { child, pid: child.pid!, dataDir, output: () => output, seen: new Map(), exited };
    launched.push(app);
    // The line comes once the signal handlers are installed.
    await waitFor("the app to be running", () => output.includes("escalation is running"), 30_000);
    sim.setWebhookUrl(`http://127.0.0.1:${port}/api/github/webhooks`);
    return app;
  }

  /** The app's processes: its descendants and its process group's members. */
  function processesOf(app: Launched) {
    const found = [...descendants(app.pid), ...inGroup(app.pid).filter((p) => p.pid !== app.pid)];
    for (const p of found) app.seen.set(p.pid, p.startTime);
    return found;
  }

  /** The private redis-server the app started. */
  function redisOf(app: Launched) {
    const redis = processesOf(app).find((p) => p.comm === "redis-server");
    expect(redis, "a private redis-server among the app's processes").toBeDefined();
    return redis!;
  }

  const ctrlC = (app: Launched) => process.kill(-app.pid, "SIGINT");

  /** Lines logged from `offset` on. */
  const linesSince = (app: Launched, offset: number) =>
    app
      .output()
      .slice(offset)
      .split("\n")
      .filter((line) => line.trim());

  /** An empty file for the slow-stop agent's events, in a directory removed after the test. */
  function newAgentLog(): string {
    const dir = mkdtempSync(join(tmpdir(), "esc-ctrlc-agent-"));
    dirs.push(dir);
    writeFileSync(join(dir, "agent.jsonl"), "");
    return join(dir, "agent.jsonl");
  }

  /** Starts an agent on a new issue; resolves with its "start" event once it runs. */
  async function runningAgent(agentLog: string): Promise<{ pid: number }> {
    const issue = sim.createIssue(REPO, { title: "Stop me", body: "", author: "maintainer" });
    sim.comment(REPO, issue.number, "maintainer", "/agent");
    return waitFor("the agent to start", () => agentEvents(agentLog).find((e) => e.event === "start"), 30_000);
  }

  const agentEvents = (agentLog: string) =>
    readFileSync(agentLog, "utf8")
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { event: string; pid: number; at: number });

  it("stops the app first and its redis-server last, quickly and quietly, every time", async () => {
    // A race between the app and redis-server (both got the SIGINT): run it several times.
    for (let run = 0; run < 5; run++) {
      // Every other run sandboxed, so the agents' egress proxy runs and is closed too.
      const sandboxed = run % 2 === 1;
      const app = await launch({ AGENT_SANDBOX: sandboxed ? "bwrap" : "none" });
      if (sandboxed) expect(app.output()).toContain("egress proxy listening for agents");
      const redis = redisOf(app);
      const before = processesOf(app);
      const offset = app.output().length;
      const sent = Date.now();
      ctrlC(app);
      const { code, at } = await app.exited;
      expect(code, `run ${run}: exit code`).toBe(0);
      expect(at - sent, `run ${run}: exit within SHUTDOWN_GRACE + 2 s`).toBeLessThan(4000);
      expect(app.output()).not.toMatch(/ECONNREFUSED|Connection is closed/);
      expect(linesSince(app, offset).length, `run ${run}: lines after Ctrl-C:\n${linesSince(app, offset).join("\n")}`).toBeLessThanOrEqual(HANDFUL);
      // The app waited for its Redis to stop: gone by the time the app is, with its password files.
      expect(isAlive(redis.pid), `run ${run}: redis-server outlived the app`).toBe(false);
      expect(readdirSync(app.dataDir)).not.toContain("redis.url");
      if (sandboxed) expect(readdirSync(join(app.dataDir, "egress")).filter((name) => name.endsWith(".sock"))).toEqual([]);
      await waitFor(`run ${run}: the app's processes to be gone`, () => before.every((p) => !isAlive(p.pid)) && inGroup(app.pid).length === 0, 5000);
    }
  }, 60_000);

  it("a second Ctrl-C exits at once, and the agent and redis-server still end", async () => {
    const agentLog = newAgentLog();
    const app = await launch({
      // A shutdown that would wait a long while for the agent, were it not interrupted.
      SHUTDOWN_GRACE: "30s",
      AGENT_KILL_GRACE: "2s",
      AGENT_COMMAND: JSON.stringify([process.execPath, SLOW_STOP_AGENT, agentLog, "200"]),
    });
    const redis = redisOf(app);
    const agent = await runningAgent(agentLog);
    const first = Date.now();
    ctrlC(app);
    await waitFor("the first Ctrl-C to start the shutdown", () => app.output().includes("shutting down"), 5000);
    // A second press, not the same one delivered twice (within a second: see the next test).
    await new Promise((r) => setTimeout(r, Math.max(0, first + 1200 - Date.now())));
    const second = Date.now();
    ctrlC(app);
    const { code, signal, at } = await app.exited;
    expect(at - second).toBeLessThan(1500);
    expect({ code, signal }).toEqual({ code: 130, signal: null }); // 128 + SIGINT: interrupted
    expect(app.output()).toContain("second signal: exiting now");
    expect(readdirSync(app.dataDir)).not.toContain("redis.url"); // no password left for a server that is going
    // The orphan watchdog stops the agent (SIGTERM, its kill grace), the keeper stops redis-server.
    await waitFor("the agent to be stopped", () => agentEvents(agentLog).some((e) => e.event === "stopped"), 5000);
    await waitFor("the agent and redis-server to be gone", () => !isAlive(agent.pid) && !isAlive(redis.pid), 5000);
    expect(app.output()).not.toMatch(/ECONNREFUSED/);
  }, 60_000);

  it("with an agent running, the agent gets SHUTDOWN_GRACE and then its kill grace, and the app still exits within SHUTDOWN_GRACE + 2 s, also when the Ctrl-C comes twice at once", async () => {
    const agentLog = newAgentLog();
    const app = await launch({
      SHUTDOWN_GRACE: "2s",
      AGENT_KILL_GRACE: "5s",
      AGENT_COMMAND: JSON.stringify([process.execPath, SLOW_STOP_AGENT, agentLog, "600"]),
    });
    const redis = redisOf(app);
    const agent = await runningAgent(agentLog);
    const offset = app.output().length;
    const sent = Date.now();
    ctrlC(app);
    // The same Ctrl-C forwarded by a launcher (npm, where its shell execs the script): not a second
    // one. A moment later, so the kernel delivers it apart rather than merging it with the first.
    await new Promise((r) => setTimeout(r, 150));
    process.kill(app.pid, "SIGINT");
    const { code, at } = await app.exited;
    expect(code, "exit code (130: the duplicate was taken for a second Ctrl-C)").toBe(0);
    const events = agentEvents(agentLog);
    const signalled = events.find((e) => e.event === "signal");
    const stopped = events.find((e) => e.event === "stopped");
    // Its own process group kept the Ctrl-C from it: SIGTERM came from the app, after the grace.
    expect(signalled?.at).toBeGreaterThanOrEqual(sent + 2000 - 100);
    // It wound down in its kill grace, and the app waited for it.
    expect(stopped?.at).toBeLessThanOrEqual(at);
    expect(at - sent).toBeLessThan(4000);
    expect(isAlive(agent.pid)).toBe(false);
    expect(isAlive(redis.pid)).toBe(false);
    expect(app.output()).not.toMatch(/ECONNREFUSED|Connection is closed/);
    expect(linesSince(app, offset).length, linesSince(app, offset).join("\n")).toBeLessThanOrEqual(HANDFUL);
  }, 60_000);

  it("an app killed outright (SIGKILL) leaves no redis-server behind", async () => {
    const app = await launch();
    const redis = redisOf(app);
    const before = processesOf(app);
    process.kill(app.pid, "SIGKILL");
    await app.exited;
    await waitFor("redis-server and the app's other processes to be gone", () => before.every((p) => !isAlive(p.pid)), 10_000);
    expect(isAlive(redis.pid)).toBe(false);
    expect(inGroup(app.pid)).toEqual([]);
  }, 60_000);
});
