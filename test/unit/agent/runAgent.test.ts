import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runAgent, type RunAgentOptions } from "../../../src/agent/runAgent.js";
import { AgentError } from "../../../src/errors.js";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "escalation-runagent-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Runs `node -e script` as the agent. */
const node = (script: string, over: Partial<RunAgentOptions> = {}) =>
  runAgent({ argv: [process.execPath, "-e", script], cwd, env: {}, input: "", timeoutMs: 10_000, killGraceMs: 500, ...over });

/** Keeps a node process alive until it is killed; prints a line first so we know it runs. */
const STAY = "console.log('running'); setInterval(() => {}, 1000);";

describe("runAgent", () => {
  it.each<[number]>([[0], [1], [3], [42]])("reports exit code %i", async (code) => {
    const run = await node(`process.exit(${code})`);
    expect(run.exitCode).toBe(code);
    expect(run.failed).toBe(code !== 0);
    expect(run.signal).toBeUndefined();
    expect(run.timedOut).toBe(false);
    expect(run.cancelled).toBe(false);
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("writes the task to the agent's stdin and closes it", async () => {
    const task = "# Task: demo\n\nline two ünïcödé 🙋\n";
    const run = await node(
      "let s='';process.stdin.setEncoding('utf8');process.stdin.on('data',d=>s+=d);process.stdin.on('end',()=>{console.log('GOT '+JSON.stringify(s))})",
      { input: task },
    );
    expect(run.exitCode).toBe(0);
    expect(run.tail).toEqual([`GOT ${JSON.stringify(task)}`]);
  });

  it("gives the agent exactly the environment given: nothing inherited", async () => {
    process.env.RUN_AGENT_TEST_PARENT_ONLY = "leak";
    try {
      const env = { GITHUB_TOKEN: "ghs_x", ESCALATION_ISSUE: "7", WITH_SPACE: "a b" };
      const run = await node("console.log(JSON.stringify(process.env))", { env });
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.tail.join(""))).toEqual(env);
    } finally {
      delete process.env.RUN_AGENT_TEST_PARENT_ONLY;
    }
  });

  it("runs in the given working directory and without a shell", async () => {
    const run = await runAgent({
      argv: [process.execPath, "-e", "console.log(process.cwd()); console.log(JSON.stringify(process.argv.slice(1)))", "$HOME", "a b", "`id`;ls"],
      cwd,
      env: {},
      input: "",
      timeoutMs: 10_000,
      killGraceMs: 500,
    });
    expect(run.tail).toEqual([cwd, JSON.stringify(["$HOME", "a b", "`id`;ls"])]);
  });

  it("calls onStart once with the child's pid before the child ends", async () => {
    const pids: number[] = [];
    const run = await node("console.log('PID ' + process.pid)", { onStart: (pid) => void pids.push(pid) });
    expect(pids).toHaveLength(1);
    expect(pids[0]).toBeGreaterThan(0);
    expect(run.tail).toEqual([`PID ${pids[0]}`]);
  });

  it("waits for an async onStart", async () => {
    const order: string[] = [];
    await node("", {
      onStart: async () => {
        await new Promise((r) => setTimeout(r, 50));
        order.push("onStart done");
      },
    });
    order.push("run done");
    expect(order).toEqual(["onStart done", "run done"]);
  });

  it("stops an agent that runs past its timeout", async () => {
    const run = await node(STAY, { timeoutMs: 500 });
    expect(run.timedOut).toBe(true);
    expect(run.failed).toBe(true);
    expect(run.signal).toBe("SIGTERM");
    expect(run.exitCode).toBeUndefined();
    expect(run.durationMs).toBeGreaterThanOrEqual(450);
    expect(run.durationMs).toBeLessThan(5_000);
  });

  it("kills an agent that ignores SIGTERM after the grace period", async () => {
    const run = await node("process.on('SIGTERM', () => console.log('ignoring SIGTERM')); " + STAY, { timeoutMs: 500, killGraceMs: 300 });
    expect(run.timedOut).toBe(true);
    expect(run.signal).toBe("SIGKILL");
    expect(run.tail).toContain("ignoring SIGTERM");
    expect(run.durationMs).toBeLessThan(5_000);
  });

  it("stops the agent when the abort signal fires", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const run = await node(STAY, {
      signal: controller.signal,
      onStart: () => {
        setTimeout(() => controller.abort(), 200);
      },
    });
    expect(run.cancelled).toBe(true);
    expect(run.timedOut).toBe(false);
    expect(run.failed).toBe(true);
    expect(run.signal).toBe("SIGTERM");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("counts an agent that exits 0 as finished, even when a stop raced its end", async () => {
    const controller = new AbortController();
    // The stop comes once the agent traps SIGTERM (a slow start on a busy machine would otherwise be killed before it does).
    const ready = join(cwd, "traps-sigterm");
    const trapped = async () => {
      while (!existsSync(ready)) await new Promise((resolve) => setTimeout(resolve, 10));
      controller.abort();
    };
    const script = `process.on('SIGTERM', () => process.exit(0)); require('fs').writeFileSync(${JSON.stringify(ready)}, ''); ${STAY}`;
    const run = await node(script, { signal: controller.signal, onStart: () => void trapped() });
    expect(run.exitCode).toBe(0);
    expect(run.cancelled).toBe(false);
    expect(run.timedOut).toBe(false);
    expect(run.failed).toBe(false);
  });

  it("keeps only the last lines of stdout and stderr together, skipping blank ones", async () => {
    const script = "for (let i = 1; i <= 100; i++) { console.log('line ' + i); if (i % 10 === 0) console.log('   '); } console.error('to stderr');";
    const run = await node(script, { tailLines: 5 });
    expect(run.tail).toEqual(["line 97", "line 98", "line 99", "line 100", "to stderr"]);
  });

  it("survives megabytes of output, keeping a bounded tail that ends with the last lines", async () => {
    const run = await node("const big = 'x'.repeat(1000); for (let i = 1; i <= 5000; i++) console.log(i + ' ' + big); console.log('last')");
    expect(run.exitCode).toBe(0);
    expect(run.tail.length).toBeLessThanOrEqual(20);
    expect(run.tail.at(-1)).toBe("last");
    expect(run.tail.at(-2)).toBe(`5000 ${"x".repeat(1000)}`);
    expect(run.tail.at(-3)).toBe(`4999 ${"x".repeat(1000)}`);
    expect(run.tail.join("\n").length).toBeLessThanOrEqual(16_384);
  });

  it("keeps 20 lines by default", async () => {
    const run = await node("for (let i = 1; i <= 50; i++) console.log('l' + i)");
    expect(run.tail).toEqual(Array.from({ length: 20 }, (_, i) => `l${i + 31}`));
  });

  it("throws AgentError when the executable does not exist", async () => {
    const argv = [join(cwd, "no-such-agent"), "--x"];
    await expect(runAgent({ argv, cwd, env: {}, input: "", timeoutMs: 5_000, killGraceMs: 100 })).rejects.toThrow(AgentError);
    await expect(runAgent({ argv, cwd, env: {}, input: "", timeoutMs: 5_000, killGraceMs: 100 })).rejects.toThrow(
      /Could not start the agent \(.*no-such-agent\)[\s\S]*ENOENT[\s\S]*Check AGENT_COMMAND/,
    );
  });

  it("throws AgentError for an empty command", async () => {
    await expect(runAgent({ argv: [], cwd, env: {}, input: "", timeoutMs: 5_000, killGraceMs: 100 })).rejects.toThrow(
      /agent command is empty; set AGENT_COMMAND/,
    );
  });

  it("does not call onStart when the executable does not exist", async () => {
    let called = false;
    await expect(
      runAgent({ argv: [join(cwd, "nope")], cwd, env: {}, input: "", timeoutMs: 5_000, killGraceMs: 100, onStart: () => void (called = true) }),
    ).rejects.toThrow(AgentError);
    expect(called).toBe(false);
  });
});
