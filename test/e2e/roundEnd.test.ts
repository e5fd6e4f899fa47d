import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";
import { requirePrograms } from "../support/programs.js";
import { sleepers } from "../support/sleepers.js";

beforeAll(() => requirePrograms("bwrap", "socat", "nsenter", "setsid"));

/** How long the process the agent leaves behind sleeps before it acts with the round's token. */
const LEFTOVER_SLEEP_S = 8;

/**
 * An agent that leaves a process behind, out of its process group (setsid) and holding its output
 * pipes, which after LEFTOVER_SLEEP_S asks on the issue through the round channel, then with the
 * round's token straight to GitHub, then exits itself. The second before its exit lets the test
 * see the leftover running.
 */
function agent(mark: string, out: string): string {
  const ask = `escalate ask --question "Asked after the round ended" --option Yes`;
  const late =
    `sleep ${mark}; ${ask} >"${out}/ask.out" 2>&1; echo "exit $?" >>"${out}/ask.out"; ` +
    `env -u ESCALATION_CHANNEL_URL -u ESCALATION_CHANNEL_TOKEN ${ask} >"${out}/token.out" 2>&1; echo "exit $?" >>"${out}/token.out"`;
  return `setsid sh -c '${late}' &\nsleep 1\necho "the agent exits, leaving a process behind"`;
}

describe("a round ends when its agent exits, and its token is revoked (issue 31)", () => {
  let loop: Loop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  /** Dispatches one round on a new issue; resolves with the round's duration once it has ended. */
  async function runRound(mark: string, env: Record<string, string>) {
    const out = mkdtempSync(join(tmpdir(), "esc-leftover-"));
    loop = await startLoop({ ...env, AGENT_COMMAND: JSON.stringify(["/bin/sh", "-c", agent(mark, out)]) });
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Leave something behind", body: "Then exit.", author: "maintainer" }).number;
    const exited = new Promise<{ outcome: string; durationMs: number }>((resolve) =>
      loop!.app.services.events.on("agent.exited", (e) => e.issue === issue && resolve(e)),
    );
    sim.comment(REPO, issue, "maintainer", "/agent");
    await waitFor("the process the agent left behind", () => sleepers(mark).length > 0, 30_000);
    const ended = await exited;
    return { sim, issue, out, ended };
  }

  it("sandboxed: the round ends as the agent exits, and what it left in the sandbox is killed with it", async () => {
    const mark = `${LEFTOVER_SLEEP_S}.${process.pid % 1000}1`;
    const { sim, issue, ended } = await runRound(mark, { AGENT_SANDBOX: "bwrap" });
    expect(ended.outcome).toBe("success");
    // Its pipes held by the leftover kept the round open until the leftover's end before.
    expect(ended.durationMs).toBeLessThan(LEFTOVER_SLEEP_S * 1000 - 2000);
    // Gone at once, long before its sleep would have ended: it never acts.
    await waitFor("the leftover to be killed", () => sleepers(mark).length === 0, 2_000);
    expect(sim.comments(REPO, issue).filter((c) => c.body.includes("Asked after the round ended"))).toEqual([]);
  }, 90_000);

  it("unsandboxed (AGENT_SANDBOX=none): the round ends as the agent exits, and the leftover's calls through the channel and with the token are refused", async () => {
    const mark = `${LEFTOVER_SLEEP_S}.${process.pid % 1000}2`;
    const { sim, issue, out, ended } = await runRound(mark, { AGENT_SANDBOX: "none" });
    expect(ended.outcome).toBe("success");
    expect(ended.durationMs).toBeLessThan(LEFTOVER_SLEEP_S * 1000 - 2000);
    // Outside any sandbox a process that left the agent's group survives it, but not its token.
    expect(sleepers(mark).length).toBe(1);
    const said = (file: string) =>
      waitFor(
        `the leftover's call (${file})`,
        () => existsSync(join(out, file)) && /exit \d+/.test(readFileSync(join(out, file), "utf8")) && readFileSync(join(out, file), "utf8"),
        30_000,
      );
    // The round's channel is closed with the round, and its token is revoked.
    const throughChannel = await said("ask.out");
    expect(throughChannel).toMatch(/This round's channel is closed/);
    expect(throughChannel).toMatch(/^exit 1$/m);
    const withToken = await said("token.out");
    expect(withToken).toMatch(/HTTP 401/);
    expect(withToken).toMatch(/^exit 1$/m);
    expect(sim.comments(REPO, issue).filter((c) => c.body.includes("Asked after the round ended"))).toEqual([]);
  }, 90_000);
});
