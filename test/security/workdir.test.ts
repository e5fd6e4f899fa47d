import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, SecureLoop, waitFor } from "./support.js";

/**
 * Issue 7: each spawn runs in its own working directory below AGENT_WORKDIR_ROOT, removed
 * afterwards unless AGENT_KEEP_WORKDIR is set.
 */
describe("security: a working directory per spawn", { timeout: 60_000 }, () => {
  let loop: SecureLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  async function twoSpawns(root: string, env: Record<string, string> = {}) {
    loop = await SecureLoop.start({ mode: "ask", env: { AGENT_WORKDIR_ROOT: root, ...env } });
    const { issue } = await loop.dispatch("Workdirs", { ask: true });
    loop.sim.comment(REPO, issue, "maintainer", "SQLite");
    const first = await loop.run(issue, 0);
    const second = await loop.run(issue, 1);
    return [first, second] as const;
  }

  it("two spawns get two fresh directories under the root, each holding its task; both are removed afterwards", async () => {
    const root = mkdtempSync(join(tmpdir(), "esc-workdirs-"));
    const runs = await twoSpawns(root);
    for (const run of runs) {
      expect(dirname(run.cwd)).toBe(root);
      expect(run.env.ESCALATION_TASK_FILE).toBe(join(run.cwd, "task.md"));
      expect(run.argv).not.toContain(root); // the agent is told its directory only through cwd and the task file
    }
    expect(runs[0].cwd).not.toBe(runs[1].cwd);
    await waitFor("both directories removed", () => readdirSync(root).length === 0);
    expect(runs.some((run) => existsSync(run.cwd))).toBe(false);
  });

  it("AGENT_KEEP_WORKDIR keeps them, with the task each agent was given", async () => {
    const root = mkdtempSync(join(tmpdir(), "esc-workdirs-"));
    const runs = await twoSpawns(root, { AGENT_KEEP_WORKDIR: "true" });
    for (const run of runs) expect(readFileSync(join(run.cwd, "task.md"), "utf8")).toBe(run.task);
    expect(readdirSync(root).sort()).toEqual(runs.map((run) => run.cwd.slice(root.length + 1)).sort());
  });
});
