import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";
import { requirePrograms } from "../support/programs.js";

beforeAll(() => requirePrograms("bwrap", "socat", "nsenter"));

/** An agent that needs no network: it looks around inside the sandbox and writes what it saw into its checkout. */
const AGENT = `
{
  echo "processes: $(ls -d /proc/[0-9]* | wc -l)"
  echo "head: $(git rev-parse --verify -q HEAD >/dev/null && echo readable)"
  echo "task: $(head -c 6 "$ESCALATION_TASK_FILE")"
  cat "$SECRET" >/dev/null 2>&1 || echo "secret: hidden"
} >SANDBOXED.md
# Its only way out is the app's egress proxy, which passes the (loopback) GitHub through.
escalate ask --question "Which database, from inside the sandbox?" --option Postgres --option SQLite
`;

describe("a round in the bubblewrap sandbox (AGENT_SANDBOX=bwrap), through the simulator", () => {
  let loop: Loop;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "esc-sandbox-root-"));
    // Another issue's checkout, beside this one under WORKSPACE_ROOT.
    mkdirSync(join(root, "issues", "acme", "widgets", "999", "checkout"), { recursive: true });
    writeFileSync(join(root, "issues", "acme", "widgets", "999", "checkout", "secret.txt"), "another issue's work\n");
    loop = await startLoop({
      AGENT_SANDBOX: "bwrap",
      AGENT_WORKSPACE: "on",
      WORKSPACE_ROOT: root,
      AGENT_COMMAND: JSON.stringify(["/bin/sh", "-c", AGENT.replace("$SECRET", join(root, "issues", "acme", "widgets", "999", "checkout", "secret.txt"))]),
    });
  });
  afterAll(async () => {
    await loop?.close();
  });

  it("the agent runs inside, works in its checkout (git included), and its work is pushed", async () => {
    const { sim } = loop;
    expect(loop.app.services.sandbox.mode).toBe("bwrap");
    expect(loop.app.services.sandbox.problem).toBeUndefined();
    await sim.seedGit(REPO, { "README.md": "# widgets\n" });
    const issue = sim.createIssue(REPO, { title: "Look around", body: "What do you see?", author: "maintainer" }).number;
    const exited = new Promise<string>((resolve) => loop.app.services.events.on("agent.exited", (e) => e.issue === issue && resolve(e.outcome)));
    sim.comment(REPO, issue, "maintainer", "/agent");
    const branch = `escalation/issue-${issue}`;
    const seen = await waitFor("the agent's work on the branch", () => sim.fileAt(REPO, branch, "SANDBOXED.md"), 60_000);
    // Its own pid namespace: bwrap's init, the shell and its pipeline; none of the app's.
    expect(Number(/^processes: (\d+)$/m.exec(seen)?.[1])).toBeLessThan(10);
    expect(seen).toContain("head: readable"); // the checkout's borrowed objects (the repository's cache) are inside
    expect(seen).toMatch(/^task: \S/m);
    expect(seen).toContain("secret: hidden"); // only this round's paths of WORKSPACE_ROOT are inside
    expect(await exited).toBe("success");
    // \`escalate ask\` reached GitHub through the proxy: the question is on the issue, and the gate waits.
    const ask = await waitFor("the sandboxed agent's question", () =>
      sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && c.body.includes("Which database, from inside the sandbox?")),
    );
    expect(ask.body).toContain("escalation:ask");
    await waitFor("the gate awaiting a human", async () => (await loop.app.services.gates.getGate(String(ask.id)))?.state === "open" || undefined);
  }, 120_000);
});

describe("a sandbox that cannot start (AGENT_SANDBOX=bwrap)", () => {
  let loop: Loop;
  let out: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "esc-sandbox-out-"));
    // A bind of a path that does not exist: bwrap refuses to start, as on a host without user namespaces.
    loop = await startLoop({
      AGENT_SANDBOX: "bwrap",
      AGENT_SANDBOX_BIND: join(out, "missing"),
      AGENT_COMMAND: JSON.stringify(["/bin/sh", "-c", `echo ran >${join(out, "ran")}`]),
    });
  });
  afterAll(async () => {
    await loop?.close();
  });

  it("refuses the round with a status line naming the setting, once, and never runs the agent unsandboxed", async () => {
    const { sim } = loop;
    expect(loop.app.services.sandbox.problem).toMatch(/AGENT_SANDBOX=bwrap.*missing.*AGENT_SANDBOX=none/);
    let started = 0;
    loop.app.services.events.on("agent.started", () => void started++);
    const issue = sim.createIssue(REPO, { title: "Try", body: "Anything.", author: "maintainer" }).number;
    sim.comment(REPO, issue, "maintainer", "/agent");
    const status = await waitFor(
      "the refusal on the issue",
      () => sim.comments(REPO, issue).find((c) => c.body.includes("not started: The agent sandbox (AGENT_SANDBOX=bwrap) cannot start")),
      60_000,
    );
    expect(status.body).toContain("AGENT_SANDBOX=none");
    expect(started).toBe(0);
    expect(existsSync(join(out, "ran"))).toBe(false);
    expect(await loop.app.services.queues.spawn.getJobCounts("delayed", "failed")).toEqual({ delayed: 0, failed: 0 }); // not retried with backoff
  }, 120_000);
});
