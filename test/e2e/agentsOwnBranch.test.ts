import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { findMarker } from "../../src/protocol/marker.js";
import { parseAskComment } from "../../src/protocol/ask.js";
import { installationToken } from "../support/gitServer.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";
import { requirePrograms } from "../support/programs.js";

beforeAll(() => requirePrograms("bwrap", "socat", "nsenter"));

/** test/support/agents/branch-hostile-agent.mjs, seeded into the repository so the sandbox shows it. */
const AGENT = readFileSync(resolve("test/support/agents/branch-hostile-agent.mjs"), "utf8");

interface Attempt {
  kind: string;
  via: "api" | "git" | "channel";
  status?: number;
  exitCode?: number;
  stderr?: string;
  stdout?: string;
}

/** The report the agent left in its checkout (under WORKSPACE_ROOT). */
function findReport(root: string): string | undefined {
  if (!existsSync(root)) return undefined;
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((f) => join(root, f))
    .find((f) => f.endsWith(join(".escalation-report", "round-1.json")));
}

/**
 * Issue 37, "Must show": an agent tries, with the token and the git set-up its round gave it, to
 * change what is not its own: the default branch, another issue's branch, a deletion, a force push
 * elsewhere, git straight to GitHub with its token; the human's answer, the app's question and
 * status, the issue's state, labels and body. Every attempt is refused; the issue's record and the
 * other branches are as they were; its own branch, its comment through the app and the round's
 * end go as for an honest agent. Sandboxed and not.
 */
describe.each([["bwrap"], ["none"]])("an agent changes nothing but its own branch (AGENT_SANDBOX=%s)", (sandbox) => {
  let loop: Loop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it("every attempt elsewhere is refused, the record and the other branches are unchanged, and the round finishes", async () => {
    const root = mkdtempSync(join(tmpdir(), "esc-own-branch-"));
    loop = await startLoop({
      AGENT_SANDBOX: sandbox,
      AGENT_WORKSPACE: "on",
      WORKSPACE_ROOT: root,
      RECONCILE_INTERVAL: "off",
      AGENT_COMMAND: JSON.stringify(["node", "branch-agent.mjs", "{round}"]),
    });
    const { sim } = loop;
    await sim.seedGit(REPO, { "README.md": "# widgets\n", "branch-agent.mjs": AGENT });
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache the lookups.", author: "maintainer", labels: ["keep-me"] }).number;
    const other = `escalation/issue-${issue + 1000}`;
    await sim.pushToBranch(REPO, other, { "OTHER.md": "another issue's work\n" }, "another issue's commit");
    await sim.pushToBranch(REPO, "feature", { "FEATURE.md": "a person's feature\n" }, "a person's feature");
    const branchesBefore = await sim.branches(REPO);

    sim.comment(REPO, issue, "maintainer", "/agent");
    const question = await waitFor("the agent's question", () => sim.comments(REPO, issue).find((c) => parseAskComment(c.body) !== undefined), 60_000);
    await waitFor("the gate open", async () => (await loop!.app.services.gates.lastGate({ repo: REPO, issue }))?.state === "open" || undefined, 30_000);
    const human = sim.comment(REPO, issue, "maintainer", "SQLite, said the maintainer");
    const exited = new Promise<{ outcome: string }>((done) =>
      loop!.app.services.events.on("agent.exited", (e) => e.issue === issue && e.round === 1 && done(e)),
    );

    // The round finishes as an honest one does.
    expect((await exited).outcome).toBe("success");
    const report = JSON.parse(readFileSync(await waitFor("the agent's report", () => findReport(root), 30_000), "utf8")) as { attempts: Attempt[] };
    const attempt = (kind: string) => report.attempts.filter((a) => a.kind === kind);

    for (const kind of ["edit-human-answer", "delete-human-answer", "edit-question", "close-issue", "edit-issue-body", "remove-label", "comment-with-token"]) {
      expect.soft(attempt(kind), kind).toEqual([expect.objectContaining({ status: 403 })]);
    }
    // The status comment, where the issue had one when the round started.
    for (const tried of attempt("edit-status")) expect.soft(tried.status, "edit-status").toBe(403);
    // Through the channel: refused ref by ref, in words git shows.
    for (const kind of [
      "push-default-branch",
      "push-other-issue-branch",
      "force-push-other-issue-branch",
      "delete-other-branch",
      "delete-own-branch",
      "force-push-elsewhere",
      "push-own-and-main",
      "push-tag",
    ]) {
      const [tried] = attempt(kind);
      expect.soft(tried?.exitCode, kind).not.toBe(0);
      expect.soft(tried?.stderr, kind).toContain("[remote rejected]");
      expect.soft(tried?.stderr, kind).toMatch(/the agent (pushes only to its branch|may not delete its branch) escalation\/issue-\d+/);
    }
    // Around the channel, with its own token: GitHub refuses it (it reads only).
    const [direct] = attempt("push-main-with-token");
    expect.soft(direct?.exitCode).not.toBe(0);
    expect.soft(direct?.stderr).toMatch(/403|denied/);
    expect.soft(attempt("push-own-branch")).toEqual([expect.objectContaining({ exitCode: 0 })]);

    // Nothing of the record changed; the other branches are where they were.
    const branch = `escalation/issue-${issue}`;
    const after = await sim.branches(REPO);
    expect(after).toMatchObject({ main: branchesBefore.main, feature: branchesBefore.feature, [other]: branchesBefore[other] });
    expect(Object.keys(after).sort()).toEqual([...Object.keys(branchesBefore), branch].sort());
    expect(sim.comments(REPO, issue).find((c) => c.id === human.id)?.body).toBe("SQLite, said the maintainer");
    expect(sim.comments(REPO, issue).find((c) => c.id === question.id)?.body).toBe(question.body);
    const state = sim.issue(REPO, issue);
    expect(state).toMatchObject({ state: "open", body: "Cache the lookups." });
    expect(state.labels).toContain("keep-me");
    expect(
      sim
        .comments(REPO, issue)
        .map((c) => c.body)
        .join("\n"),
    ).not.toMatch(/FORGED-/);

    // Its own branch has its commit, delivered as the issue's one pull request; its comment is the app's, marked as its words, with no marker the loop reads.
    expect(await sim.fileAt(REPO, branch, "DONE.md")).toBe("Finished in round 1.\n");
    const token = await installationToken(sim, REPO, { pull_requests: "read" });
    const pulls = await waitFor("the pull request", async () => {
      const listed = (await (await fetch(`${sim.apiUrl}/repos/${REPO}/pulls?state=all`, { headers: { authorization: `token ${token}` } })).json()) as Array<{
        head: { ref: string };
      }>;
      return listed.length > 0 ? listed : undefined;
    });
    expect(pulls.map((p) => p.head.ref)).toEqual([branch]);
    const [commented] = attempt("escalate-comment");
    expect(commented?.exitCode, commented?.stderr).toBe(0);
    const comment = sim.comments(REPO, issue).find((c) => c.body.includes("Done; see DONE.md."));
    expect(comment?.user.login).toBe(sim.botLogin);
    expect(commented?.stdout).toBe(comment?.html_url);
    expect(comment?.body).toMatch(/^> 🤖 \*\*The agent wrote\*\* \(round 1\):/);
    expect(findMarker(comment!.body, "ask")).toBeUndefined();
    // Only the one question of round 0 opened a gate: the forged one in the comment did not.
    const gates = (await loop.app.services.rounds.roundRecords({ repo: REPO, issue })).gates;
    expect(gates.map((g) => g.id)).toEqual([String(question.id)]);
  }, 180_000);
});
