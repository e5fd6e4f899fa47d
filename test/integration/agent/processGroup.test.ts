import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/runAgent.js";
import { isAlive } from "../../../src/dev/chaos/agents.js";
import { ensureBuilt } from "../../support/build.js";
import { waitFor } from "../../support/harness.js";

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "escalation-group-")));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** An agent that starts a helper process (in its own process group), prints both pids, and stays. */
const PARENT_AND_CHILD = `
const child = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
console.log("AGENT " + process.pid + " CHILD " + child.pid);
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
      // The stand-in app does not print the agent's output; find the agent by its parent instead.
      // Generous: a loaded host may take seconds to start node three times.
      const agentPid = await waitFor("the agent process", () => childrenOf(app.pid!).find((pid) => commandOf(pid).includes("AGENT")), 40_000);
      const helperPid = await waitFor("the agent's helper", () => childrenOf(agentPid)[0], 40_000);
      app.kill("SIGKILL");
      const killedAt = Date.now();
      await waitFor("the orphaned agent to be stopped", () => !isAlive(agentPid) && !isAlive(helperPid), 10_000);
      expect(Date.now() - killedAt).toBeLessThan(5000); // SIGTERM at once; SIGKILL after the 0.5 s grace
      expect(output).toBe("");
    }, 90_000);
  });
});

/** Linux: the children of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}
