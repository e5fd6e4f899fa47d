import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { GitHubSimulator } from "../../tools/simulator/index.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { REPO, WEBHOOK_SECRET, waitFor } from "../support/harness.js";

/**
 * The product as users run it: `node dist/main.js` (what `npm start` runs after building) configured
 * only through the documented environment, against the GitHub simulator.
 */
describe("npm start", () => {
  let child: ChildProcess | undefined;
  let sim: GitHubSimulator | undefined;

  afterEach(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((r) => child!.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    await sim?.stop();
    child = undefined;
    sim = undefined;
  });

  async function start(env: Record<string, string>): Promise<{ url: string; output: () => string }> {
    const port = await freePort();
    let output = "";
    child = spawn(process.execPath, [resolve("dist/main.js")], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: "127.0.0.1", LOG_FORMAT: "json", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const url = `http://127.0.0.1:${port}`;
    await waitFor("the app's /healthz", async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok, 20_000);
    return { url, output: () => output };
  }

  it("runs the whole loop with a private Redis under DATA_DIR when REDIS_URL is unset, and stops on SIGTERM", async () => {
    sim = await GitHubSimulator.start({ webhookSecret: WEBHOOK_SECRET });
    sim.addRepo(REPO);
    sim.addUser("maintainer");
    sim.setPermission(REPO, "maintainer", "write");
    const out = mkdtempSync(join(tmpdir(), "esc-start-"));
    const dataDir = mkdtempSync(join(tmpdir(), "esc-data-"));
    const { url, output } = await start({
      ...sim.appEnv(),
      DATA_DIR: dataDir,
      // The agent runs from this project's directory, which the sandbox does not show.
      AGENT_SANDBOX: "none",
      AGENT_COMMAND: JSON.stringify([process.execPath, resolve("test/support/agents/recording-agent.mjs"), out, "{round}", "ask"]),
    });
    sim.setWebhookUrl(`${url}/api/github/webhooks`);
    const issue = sim.createIssue(REPO, { title: "Via npm start", body: "", author: "maintainer" });
    sim.comment(REPO, issue.number, "maintainer", "/agent");
    await waitFor("the gate's label", () => sim!.issue(REPO, issue.number).labels.includes("awaiting-human"), 20_000);
    sim.comment(REPO, issue.number, "maintainer", "2");
    await waitFor("round 1", () => readdirSync(out).some((f) => f.startsWith("round-1-")), 20_000);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining([expect.stringMatching(/appendonly/)]));
    // The private Redis has a password: the operator finds it in DATA_DIR; no log line and no agent does.
    const password = /^requirepass (\S+)$/m.exec(readFileSync(join(dataDir, "redis.conf"), "utf8"))![1];
    expect(readFileSync(join(dataDir, "redis.url"), "utf8")).toContain(`:${password}@127.0.0.1:`);
    const agentRecords = readdirSync(out).filter((f) => f.startsWith("round-"));
    expect(agentRecords.length).toBeGreaterThanOrEqual(2);
    for (const record of agentRecords) expect(JSON.stringify(JSON.parse(readFileSync(join(out, record), "utf8")).env)).not.toContain(password);
    expect(output()).toContain("redis://:***@127.0.0.1:");
    expect(output()).not.toMatch(/has no password/);
    const exited = new Promise<number | null>((r) => child!.once("exit", (code) => r(code)));
    child!.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output()).not.toContain(password);
  });

  it("warns once at start that a REDIS_URL without a password is within agents' reach", async () => {
    sim = await GitHubSimulator.start({ webhookSecret: WEBHOOK_SECRET });
    // The suite's Redis without its password: the line comes before the app's first command.
    const url = new URL(inject("redisUrl"));
    url.password = "";
    let output = "";
    child = spawn(process.execPath, [resolve("dist/main.js")], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(await freePort()),
        HOST: "127.0.0.1",
        LOG_FORMAT: "json",
        ...sim.appEnv(),
        REDIS_URL: url.toString(),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    await waitFor("the warning", () => output.includes("has no password"), 10_000);
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGTERM");
    await exited;
    child = undefined; // ended by the signal: nothing left for afterEach
    const warnings = output.split("\n").filter((line) => line.includes("has no password"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/REDIS_URL \(redis:\/\/127\.0\.0\.1:\d+\/?\) has no password: agents on this host could reach Redis/);
  });

  it("refuses to start with one clear line naming what is missing", async () => {
    const port = await freePort();
    const proc = spawn(process.execPath, [resolve("dist/main.js")], { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    proc.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => proc.once("exit", (c) => r(c)));
    expect(code).toBe(1);
    expect(stderr).toMatch(/APP_ID/);
    expect(stderr).toMatch(/WEBHOOK_SECRET/);
  });
});
