import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/runAgent.js";
import { isAlive } from "../../../tools/chaos/agents.js";
import { ensureBuilt } from "../../support/build.js";
import { waitFor } from "../../support/harness.js";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "escalation-group-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** An agent that starts a helper process (in its own process group), prints both pids (and writes them to pids.txt in its cwd), and stays. */
const PARENT_AND_CHILD = `
const child = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
const line = "AGENT " + process.pid + " CHILD " + child.pid;
require("node:fs").writeFileSync("pids.txt", line);
console.log(line);
setInterval(() => {}, 1000);
`;

function pidsIn(text: string): { agent: number; child: number } | undefined {
  const match = /AGENT (\d+) CHILD (\d+)/.exec(text);
  return match ? { agent: Number(match[1]), child: Number(match[2]) } : undefined;
}

describe("the agent's process group", () => {
  it("stopping the agent (timeout, /stop, shutdown) stops the processes it started too", async () => {
    const run = await runAgent({ argv: [process.execPath, "-e", PARENT_AND_CHILD], cwd, env: {}, input: "", timeoutMs: 1500, killGraceMs: 300 });
    expect(run.timedOut).toBe(true);
    const pids = pidsIn(run.tail.join("\n"));
    expect(pids).toBeDefined();
    await waitFor("the agent's helper to be gone", () => !isAlive(pids!.child), 3000);
    expect(isAlive(pids!.agent)).toBe(false);
  });

  describe("when the app dies without stopping it (SIGKILL)", () => {
    beforeAll(async () => {
      await ensureBuilt(); // the stand-in app below runs dist/agent/runAgent.js
    }, 120_000);

    it("the watchdog stops the agent and what it started within the kill grace", async () => {
      rmSync(join(cwd, "pids.txt"), { force: true }); // the first test's agent wrote one too
      const runAgentUrl = pathToFileURL(resolve("dist/agent/runAgent.js")).href;
      const app = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { runAgent } from ${JSON.stringify(runAgentUrl)};
           await runAgent({ argv: [process.execPath, "-e", ${JSON.stringify(PARENT_AND_CHILD)}], cwd: ${JSON.stringify(cwd)}, env: {}, input: "",
             timeoutMs: 60000, killGraceMs: 500, onStart: () => {} });`,
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let output = "";
      app.stderr.on("data", (d: Buffer) => (output += d.toString()));
      // The stand-in app does not print the agent's output; the agent writes both pids to a file.
      // Generous: a loaded host may take seconds to start node three times.
      const pids = await waitFor("the agent and its helper", () => pidsIn(readIfExists(join(cwd, "pids.txt"))), 60_000);
      const { agent: agentPid, child: helperPid } = pids;
      expect(isAlive(agentPid) && isAlive(helperPid)).toBe(true);
      app.kill("SIGKILL");
      const killedAt = Date.now();
      await waitFor("the orphaned agent to be stopped", () => !isAlive(agentPid) && !isAlive(helperPid), 10_000);
      expect(Date.now() - killedAt).toBeLessThan(5000); // SIGTERM at once; SIGKILL after the 0.5 s grace
      expect(output).toBe("");
    }, 100_000);
  });
});

function readIfExists(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
