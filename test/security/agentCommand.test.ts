import { afterEach, describe, expect, it } from "vitest";
import { AGENT, REPO, SecureLoop, outDir, waitFor } from "./support.js";

/**
 * Issue 7: the agent's command comes from server-side configuration only. A repository's
 * `.github/escalation.yml` may pick one of the server's named profiles (AGENT_PROFILES) with
 * `agent_profile`; it can never supply a command or arguments. An unknown profile gets a visible
 * error on the issue and nothing runs.
 */
describe("security: the agent's command is the server's", { timeout: 60_000 }, () => {
  let loop: SecureLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it("a repository's `command` (or any argument) is refused with one comment, and the server's command runs", async () => {
    loop = await SecureLoop.start();
    await loop.configure(["command: [sh, -c, 'touch /tmp/pwned']", "args: [--dangerously-skip-permissions]", ""].join("\n"));
    const { issue } = await loop.dispatch("Config with a command");
    const run = await loop.run(issue, 0);
    expect(run.argv).toEqual([loop.out, "0", "done"]);
    const problem = await waitFor("the config comment", () =>
      loop!.appComments(issue).find((c) => c.body.startsWith("⚠️ `.github/escalation.yml` is invalid")),
    );
    expect(problem.body).toMatch(/Unrecognized keys?: "command", "args"/);
  });

  it("agent_profile picks a server-defined profile by name; an unknown name runs nothing and says so on the issue", async () => {
    const out = outDir();
    loop = await SecureLoop.start({
      out,
      env: { AGENT_PROFILES: JSON.stringify({ careful: [process.execPath, AGENT, out, "{round}", "done", "--profile=careful"] }) },
    });
    await loop.configure("agent_profile: careful\n");
    const { issue } = await loop.dispatch("Careful");
    expect((await loop.run(issue, 0)).argv).toEqual([loop.out, "0", "done", "--profile=careful"]);

    await loop.configure("agent_profile: reckless\n");
    const { issue: unknown } = await loop.dispatch("Reckless");
    const error = await waitFor("the visible error", () => loop!.appComments(unknown).find((c) => c.body.startsWith("⚠️ The agent was not started")));
    expect(error.body).toBe(
      "⚠️ The agent was not started: `.github/escalation.yml` sets `agent_profile: reckless`, but this server defines no such profile (defined: `careful`). Fix the file, then comment `/retry`.",
    );
    await loop.quiet();
    expect(loop.runs(unknown)).toEqual([]);
    expect(await loop.app.services.rounds.currentRound({ repo: REPO, issue: unknown })).toBe(0);
    // Fixed, and retried as the comment says.
    await loop.configure("agent_profile: careful\n");
    loop.sim.comment(REPO, unknown, "maintainer", "/retry");
    expect((await loop.run(unknown, 0)).argv).toEqual([loop.out, "0", "done", "--profile=careful"]);

    // A name that is not a plain profile name is an invalid file, never a command.
    await loop.configure("agent_profile: 'careful; rm -rf /'\n");
    const { issue: injected } = await loop.dispatch("Injected");
    const run = await loop.run(injected, 0);
    expect(run.argv).toEqual([loop.out, "0", "done"]);
    await waitFor("the config comment", () => loop!.appComments(injected).find((c) => c.body.includes("agent_profile")));
  });
});
