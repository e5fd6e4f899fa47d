import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELEASE_LINE, gatedCommand, launchEnv, launcherCommand } from "../../../src/agent/releaseGate.js";
import { isAlive } from "../../../tools/chaos/agents.js";
import { ensureBuilt } from "../../support/build.js";
import { waitFor } from "../../support/harness.js";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "escalation-gate-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** An agent that records that it ran, with the stdin it got, in `ran.txt`. */
const RECORDER = `let input = ""; process.stdin.on("data", (d) => (input += d)); process.stdin.on("end", () => require("node:fs").writeFileSync("ran.txt", input));`;

describe("the release gate an agent starts behind", () => {
  beforeAll(() => rmSync(join(cwd, "ran.txt"), { force: true }));

  it("once released, runs the agent with the same pid and the task intact after the release line", async () => {
    rmSync(join(cwd, "ran.txt"), { force: true });
    const [shell, args] = gatedCommand(process.execPath, ["-e", `${RECORDER} process.stdout.write(String(process.pid));`]);
    const child = spawn(shell, args, { cwd, stdio: ["pipe", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const task = "# Task\n\nline two\n  indented, no trailing newline";
    child.stdin.end(RELEASE_LINE + task);
    const code = await new Promise<number | null>((done) => child.on("exit", done));
    expect(code).toBe(0);
    expect(Number(stdout)).toBe(child.pid);
    expect(readFileSync(join(cwd, "ran.txt"), "utf8")).toBe(task);
  });

  it("stdin closed before the release line: exits 0 without starting the agent", async () => {
    rmSync(join(cwd, "ran.txt"), { force: true });
    const [shell, args] = gatedCommand(process.execPath, ["-e", RECORDER]);
    const child = spawn(shell, args, { cwd, stdio: ["pipe", "ignore", "inherit"] });
    child.stdin.end();
    expect(await new Promise<number | null>((done) => child.on("exit", done))).toBe(0);
    expect(existsSync(join(cwd, "ran.txt"))).toBe(false);
  });

  describe("the launcher (a gate started before its command is known: a sandboxed round's)", () => {
    const run = async (env: Record<string, string>, input: string) => {
      const [shell, args] = launcherCommand({ prelude: "" });
      const child = spawn(shell, args, { cwd, env, stdio: ["pipe", "pipe", "inherit"] });
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stdin.end(input);
      const code = await new Promise<number | null>((done) => child.on("exit", done));
      return { code, stdout };
    };

    it("once released, runs the command from its environment, arguments intact, in exactly the agent's environment", async () => {
      const awkward = ["two words", "$(touch hacked)", "`id`", "line\nbreak", "", "*", '"quoted" \\ back'];
      const printer = `process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), env: process.env }))`;
      const { code, stdout } = await run(launchEnv(process.execPath, ["-e", printer, ...awkward], { PATH: "/usr/bin:/bin", TOKEN: "x y" }), RELEASE_LINE);
      expect(code).toBe(0);
      const seen = JSON.parse(stdout) as { argv: string[]; env: Record<string, string> };
      expect(seen.argv).toEqual(awkward);
      // None of the launcher's own variables, and no PWD the shell made up.
      expect(seen.env).toEqual({ PATH: "/usr/bin:/bin", TOKEN: "x y" });
      expect(existsSync(join(cwd, "hacked"))).toBe(false);
    });

    it("runs nothing when its input ends before the release line, or when it was given no command", async () => {
      rmSync(join(cwd, "ran.txt"), { force: true });
      expect((await run(launchEnv(process.execPath, ["-e", RECORDER], { PATH: "/usr/bin:/bin" }), "")).code).toBe(0);
      expect((await run({ PATH: "/usr/bin:/bin" }, RELEASE_LINE)).code).toBe(125);
      expect(existsSync(join(cwd, "ran.txt"))).toBe(false);
    });
  });

  describe("an app SIGKILLed after the fork, before it released the gate", () => {
    beforeAll(async () => {
      await ensureBuilt(); // the stand-in app below imports dist/agent/releaseGate.js
    }, 120_000);

    it("leaves no agent: the gate reads end-of-file from the dead app's pipe and exits", async () => {
      rmSync(join(cwd, "ran.txt"), { force: true });
      const gateUrl = pathToFileURL(resolve("dist/agent/releaseGate.js")).href;
      const app = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { spawn } from "node:child_process";
           import { gatedCommand } from ${JSON.stringify(gateUrl)};
           const [shell, args] = gatedCommand(process.execPath, ["-e", ${JSON.stringify(RECORDER)}]);
           const agent = spawn(shell, args, { cwd: ${JSON.stringify(cwd)}, detached: true, stdio: ["pipe", "ignore", "ignore"] });
           console.log(agent.pid);
           setInterval(() => {}, 1000);`,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      let stdout = "";
      app.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      await waitFor("the stand-in app to fork the gated agent", () => /^\d+\n/.test(stdout), 10_000);
      const gated = Number(stdout.trim());
      expect(isAlive(gated)).toBe(true); // waiting at the gate
      app.kill("SIGKILL");
      await waitFor("the gate shell to exit", () => !isAlive(gated), 5000);
      expect(existsSync(join(cwd, "ran.txt"))).toBe(false);
    });
  });
});
