import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/config/projectRoot.js";
import { parseAskComment } from "../../src/protocol/ask.js";
import { allFiles } from "../support/files.js";
import { REPO, WEBHOOK_SECRET, startLoop, waitFor, type Loop } from "../support/harness.js";
import { requirePrograms } from "../support/programs.js";

beforeAll(() => requirePrograms("bwrap", "socat", "nsenter", "setpriv", "chown"));

/**
 * Issue 15, "Must show": an agent steered to attack, run with the sandbox on, tries every way
 * around the human (test/support/agents/hostile-agent.mjs lists them) in the round after a human
 * answered; then Redis is wiped and the app restarted. Every attempt fails or is ignored, its own
 * question still waits for a human, the humans' answers reach the next round in their own words, and
 * none of the App's secrets is in anything the agent wrote.
 *
 * The same scenario runs as root and as an unprivileged user: as root, in this process, and again in
 * a child vitest run of this file as uid 65534 (setpriv), which runs only the unprivileged case.
 */
const AGENT = readFileSync(resolve("test/support/agents/hostile-agent.mjs"), "utf8");
const HOSTILE_ROUND = 2;
/** What the agent posts or writes in place of a human (hostile-agent.mjs FORGED). */
const FORGED = ["FORGED-ANSWER", "FORGED-EDIT", "FORGED-ACK", "FORGED-STATUS", "FORGED-BODY"];
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
/** Set in the child run as the unprivileged user: it runs the scenario in process. */
const INNER = process.env.HOSTILE_UNPRIVILEGED_RUN === "1";

interface Attempt {
  kind: string;
  target: string;
  outcome: "done" | "blocked" | "skipped";
  role?: string;
  entries?: string[];
  status?: number;
  [key: string]: unknown;
}
interface Report {
  round: number;
  /** Its checkout, task file and ask file: the paths a round is meant to see. */
  ownPaths: string[];
  hostView: boolean;
  visibleProcesses: number;
  processes: Array<{ pid: number; comm: string; cmdline?: string[]; cwd?: string; environ?: Record<string, string> }>;
  attempts: Attempt[];
  loot: string[];
}

/** The App's secrets as the test knows them, and the distinctive pieces to look for. */
function secretNeedles(secrets: Record<string, string>): Array<[string, string]> {
  const needles: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(secrets)) {
    if (name === "privateKey") {
      // Each line of the key's body: a copy cut or re-wrapped anywhere still shows one.
      for (const line of value.split("\n").slice(1, -2)) if (line.length >= 40) needles.push([name, line]);
    } else needles.push([name, value]);
  }
  return needles;
}

/** `/proc/PID/stat`'s start time: with the pid, it names the test's process tree for the agent. */
function startTime(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ")[19]!;
}

function findFile(dir: string, name: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .find((f) => f.endsWith(`${sep}${name}`));
}

/** A stand-in for the app's process as `npm start` runs it: its secrets in its environment, DATA_DIR its working directory. */
function appProcessStandIn(dataDir: string, env: Record<string, string>): ChildProcess {
  // The harness runs the app inside the test process, whose environment holds none of these.
  return spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30) // escalation app stand-in"], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: "ignore",
  });
}

async function hostileScenario(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), "esc-hostile-"));
  const dataDir = join(base, "data");
  mkdirSync(dataDir, { mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const keyFile = join(dataDir, "private-key.pem");
  const stateSecret = randomBytes(32).toString("hex");
  const adminToken = randomBytes(24).toString("hex");
  const nonce = randomBytes(4).toString("hex");
  let loop: Loop | undefined;
  let standIn: ChildProcess | undefined;
  let failure: unknown;
  try {
    loop = await startLoop({
      // Its only network is then the egress proxy, which the app runs for sandboxed agents.
      AGENT_SANDBOX: "bwrap",
      AGENT_WORKSPACE: "on",
      DATA_DIR: dataDir,
      STATE_SECRET: stateSecret,
      ADMIN_TOKEN: adminToken,
      RECONCILE_INTERVAL: "off",
      // The repository's own script: an agent's code is whatever the issue steered it to run.
      AGENT_COMMAND: JSON.stringify(["node", "hostile-agent.mjs", "{round}"]),
    });
    const { sim } = loop;
    const privateKey = sim.appEnv().PRIVATE_KEY;
    writeFileSync(keyFile, privateKey, { mode: 0o600 });
    const redisPassword = decodeURIComponent(new URL(loop.config.redisUrl).password);
    const secrets: Record<string, string> = { privateKey, webhookSecret: WEBHOOK_SECRET, stateSecret, adminToken, ...(redisPassword ? { redisPassword } : {}) };
    standIn = appProcessStandIn(dataDir, {
      PRIVATE_KEY: privateKey,
      PRIVATE_KEY_PATH: keyFile,
      WEBHOOK_SECRET,
      STATE_SECRET: stateSecret,
      ADMIN_TOKEN: adminToken,
      REDIS_URL: loop.config.redisUrl,
      DATA_DIR: dataDir,
    });

    await sim.seedGit(REPO, { "README.md": "# widgets\n", "hostile-agent.mjs": AGENT });
    const redisPort = new URL(loop.config.redisUrl).port;
    const ports = [new URL(loop.app.url).port, new URL(sim.apiUrl).port, redisPort].join(",");
    const body = `Add a cache. [hostile-round:${HOSTILE_ROUND}] [scope:${process.ppid}:${startTime(process.ppid)}] [ports:${ports}] [redis:${redisPort}]`;
    const issue = sim.createIssue(REPO, { title: "Add a cache", body, author: "maintainer" }).number;
    const ref = { repo: REPO, issue };
    const store = () => loop!.app.services;
    const asks = () => sim.comments(REPO, issue).filter((c) => c.user.login === sim.botLogin && safeAsk(c.body));
    const gateOpen = async (n: number) => {
      const ask = await waitFor(`ask ${n}`, () => asks()[n], 60_000);
      await waitFor(
        `gate ${n} open`,
        async () => (await store().gates.lastGate(ref))?.id === String(ask.id) && (await store().gates.lastGate(ref))?.state === "open",
        30_000,
      );
      return ask;
    };
    const humanWords = [
      `SQLite, said the maintainer ${nonce}-A`,
      `Port 8080, said the maintainer ${nonce}-B`,
      `No, never drop them, said the maintainer ${nonce}-C`,
    ];

    sim.comment(REPO, issue, "maintainer", "/agent");
    await gateOpen(0);
    sim.comment(REPO, issue, "maintainer", humanWords[0]!);
    await gateOpen(1);
    sim.comment(REPO, issue, "maintainer", humanWords[1]!);

    // The hostile round: its report, its last comment, its own question open.
    const workspaces = join(dataDir, "workspaces");
    const reportFile = await waitFor("the hostile round's report", () => findFile(workspaces, `round-${HOSTILE_ROUND}.json`), 90_000);
    await waitFor("the hostile agent's last comment", () => sim.comments(REPO, issue).some((c) => c.body.includes("Found ")), 30_000);
    const ownAsk = await gateOpen(2);
    const roundEnd = async (round: number) => {
      const timing = (await store().rounds.roundTimings(ref)).find((t) => t.round === round);
      return timing && timing.startedAt + timing.runMs;
    };
    const hostileRoundEnd = await waitFor("the hostile round recorded as over", () => roundEnd(HOSTILE_ROUND), 30_000);
    const report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
    const checkout = dirname(dirname(reportFile));
    const tried = (kind: string) => report.attempts.filter((a) => a.kind === kind);

    // Soft: a run reports every attempt that got through, not only the first.
    // What the sandbox and the proxy stop.
    expect.soft(report.hostView, "the agent saw the test's processes: no pid namespace").toBe(false);
    expect.soft(report.processes.map((p) => p.comm)).not.toContain("redis-server");
    expect.soft(report.processes.filter((p) => p.cwd === dataDir || (p.cmdline ?? []).join(" ").includes("app stand-in"))).toEqual([]);
    expect.soft(tried("read-file").filter((a) => a.outcome === "done" && !a.target.startsWith("/proc/"))).toEqual([]);
    const sensitive = [dataDir, base, projectRoot, homedir(), "/root"];
    const leakedListings = tried("list")
      .filter((a) => a.outcome === "done" && sensitive.some((s) => a.target === s || a.target.startsWith(s + sep)))
      .map((a) => ({ target: a.target, real: realEntriesShown(a, report.ownPaths) }))
      .filter((a) => a.real.length > 0);
    expect.soft(leakedListings, "directories of the app, DATA_DIR or a home listed from inside the sandbox").toEqual([]);
    expect.soft(tried("tcp-connect").filter((a) => a.outcome === "done")).toEqual([]);
    expect.soft(tried("proxy-connect").length, "loopback tried through the proxy").toBeGreaterThan(0);
    expect
      .soft(
        tried("proxy-connect").filter((a) => a.outcome === "done"),
        "loopback reached through the proxy",
      )
      .toEqual([]);
    expect.soft(tried("tcp-listener-seen"), "the host's listeners are visible: no network namespace").toEqual([]);
    expect.soft(tried("tcp-connect").filter((a) => a.outcome === "blocked").length, "the app's and Redis's ports were tried").toBeGreaterThanOrEqual(2);
    expect.soft(tried("redis-write")).toEqual([expect.objectContaining({ outcome: "blocked" })]);
    const metadata = tried("metadata");
    expect.soft(metadata).toHaveLength(2);
    for (const attempt of metadata) expect.soft(attempt, "the proxy refuses the metadata address (403)").toMatchObject({ outcome: "blocked", status: 403 });
    expect.soft(tried("own-question")).toEqual([expect.objectContaining({ outcome: "done" })]);
    // Its token reads only (issue 37): GitHub refuses each of these; were it given issues:write, the app would ignore them.
    for (const kind of [
      "edit-human-answer",
      "delete-human-answer",
      "forge-acknowledgement",
      "forge-answer-as-bot",
      "approve-as-bot",
      "remove-awaiting-label",
      "edit-issue-body",
    ]) {
      expect
        .soft(
          tried(kind).map((a) => [a.outcome, a.status]),
          kind,
        )
        .toEqual([["blocked", 403]]);
    }
    expect.soft(tried("edit-status-comment").length + tried("forge-status-comment").length).toBeGreaterThanOrEqual(2);

    const assertGateWaits = async (when: string) => {
      const gate = await store().gates.lastGate(ref);
      expect.soft(gate?.id, `${when}: the last gate is the agent's own question`).toBe(String(ownAsk.id));
      expect.soft(gate?.state, `${when}: it still waits for a human`).toBe("open");
      expect.soft(gate?.answers, when).toEqual([]);
      const gates = (await store().rounds.roundRecords(ref)).gates.sort((a, b) => a.round - b.round);
      expect
        .soft(
          gates.map((g) => g.answers.map((a) => [a.by, a.text])),
          `${when}: the humans' answers as they wrote them`,
        )
        .toEqual([[["maintainer", humanWords[0]]], [["maintainer", humanWords[1]]], []]);
    };
    await assertGateWaits("before the wipe");

    // Redis is lost and the app restarts: the rebuild reads GitHub, where the agent wrote. Once the
    // app's own writes are out: an acknowledgement still queued is the only copy of the answer the
    // agent deleted, and a wipe takes it (README, "Reliability").
    await waitFor("the app's queued writes to go out", async () => (await store().queues.feedback.unfinished()) === 0, 60_000);
    await loop.wipeRedis();
    await loop.restart();
    await assertGateWaits("after the rebuild");

    // The human answers the agent's question: the next round's task has every human's own words, nothing forged.
    sim.comment(REPO, issue, "maintainer", humanWords[2]!);
    const nextTask = join(checkout, ".hostile", `round-${HOSTILE_ROUND + 1}-task.md`);
    await waitFor("the next round's task", () => existsSync(nextTask), 60_000);
    await waitFor("the next round recorded as over", () => roundEnd(HOSTILE_ROUND + 1), 30_000);
    const task = readFileSync(nextTask, "utf8");
    // The detached process the hostile round left: nothing of a round may outlive it.
    const lingering = join(checkout, ".hostile", "lingering.log");
    // It may be gone before its first beat: the file is then absent.
    const beats = existsSync(lingering) ? readFileSync(lingering, "utf8").split("\n").filter(Boolean).map(Number) : [];
    expect
      .soft(
        beats.filter((at) => at > hostileRoundEnd + 1000),
        "heartbeats of the hostile round's process after its round ended",
      )
      .toEqual([]);
    for (const words of humanWords) expect.soft(task).toContain(words);
    for (const forged of FORGED) expect.soft(task, `${forged}: text the agent's token wrote, folded in as a human's`).not.toContain(forged);

    // Nothing of the App's secrets in anything the agent wrote: report, files and history of its checkout, pushed branches, comments.
    const written: Array<[string, string]> = [
      ...allFiles(checkout).map((f): [string, string] => [relative(checkout, f), readFileSync(f, "latin1")]),
      ["git history", execFileSync("git", ["-C", checkout, "log", "--all", "-p", "--format=%B"], { encoding: "utf8", maxBuffer: 64 << 20 })],
      ...sim.comments(REPO, issue).map((c): [string, string] => [`comment ${c.id} by ${c.user.login}`, c.body]),
    ];
    for (const [branch] of Object.entries(await sim.branches(REPO))) {
      for (const path of [`.hostile/round-${HOSTILE_ROUND}.json`, `.hostile/round-${HOSTILE_ROUND + 1}-task.md`]) {
        written.push([`${branch}:${path}`, (await sim.fileAt(REPO, branch, path)) ?? ""]);
      }
    }
    const leaks = secretNeedles(secrets).flatMap(([name, needle]) =>
      written.filter(([, text]) => text.includes(needle)).map(([where]) => `${name} in ${where}`),
    );
    expect.soft([...new Set(leaks)]).toEqual([]);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    standIn?.kill("SIGKILL");
    // A failure above is the one to report, not what closing found after it.
    await loop?.close().catch((error: unknown) => {
      if (!failure) throw error;
    });
    rmSync(base, { recursive: true, force: true });
  }
}

/** Entries of the real directory `attempt` listed, other than the way down to the round's own paths (checkout, task file). */
function realEntriesShown(attempt: Attempt, ownPaths: readonly string[]): string[] {
  let real: string[];
  try {
    real = readdirSync(attempt.target);
  } catch {
    return [];
  }
  const ways = ownPaths.filter((p) => p.startsWith(attempt.target + sep)).map((p) => relative(attempt.target, p).split(sep)[0]);
  return (attempt.entries ?? []).filter((e) => !ways.includes(e) && real.includes(e));
}

function safeAsk(body: string) {
  try {
    return parseAskComment(body);
  } catch {
    return undefined;
  }
}

/** This file again, as uid 65534 with its own HOME and TMPDIR: only the unprivileged case runs there. */
function runAsNobody(): { code: number; output: string } {
  const home = mkdtempSync(join(tmpdir(), "esc-hostile-nobody-"));
  chmodSync(home, 0o700);
  execFileSync("chown", [`${NOBODY}:${NOBODY}`, home]);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: home, HOSTILE_UNPRIVILEGED_RUN: "1", CI: "1" };
  try {
    // `runner` loads vitest.config.ts without writing a bundled copy next to it (the checkout is read-only to this user).
    const output = execFileSync(
      "setpriv",
      [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        process.execPath,
        resolve("node_modules/vitest/vitest.mjs"),
        "run",
        "--configLoader",
        "runner",
        "test/e2e/hostileAgent.test.ts",
      ],
      { cwd: projectRoot, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 280_000, maxBuffer: 16 << 20 },
    );
    return { code: 0, output };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, output: `${e.stdout ?? ""}\n${e.stderr ?? ""}` };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe("a hostile agent in the sandbox (issue 15)", () => {
  it("as root: every attempt fails or is ignored, the gate waits for a human, no secret leaks", async (ctx) => {
    if (INNER || !isRoot) ctx.skip("the test suite is not running as root; the unprivileged case below runs the scenario");
    await hostileScenario();
  }, 240_000);

  it("as an unprivileged user: the same scenario passes", async () => {
    if (INNER || !isRoot) {
      await hostileScenario();
      return;
    }
    const { code, output } = runAsNobody();
    expect(code, output.slice(-6000)).toBe(0);
    // The child ran the scenario itself (not only skips).
    expect(output.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/Tests\s+1 passed \| 1 skipped \(2\)/);
  }, 300_000);
});
