import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAskComment } from "../../src/protocol/ask.js";
import { basicAuthorization } from "../../src/workspace/gitCredentials.js";
import { installationToken } from "../support/gitServer.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";
import { allFiles } from "../support/files.js";

const AGENT = resolve("test/support/agents/workspace-agent.mjs");

/** What test/support/agents/workspace-agent.mjs saw in one round. */
interface Seen {
  cwd: string;
  env: Record<string, string>;
  task: string;
  branch: string;
  origin: string;
  app: string | null;
  notes: string | null;
  status: string;
  pushed?: string;
  /** GitHub's status for the pull request the agent opened itself ("[open-pr]"). */
  openedPr?: number;
}

const seen = (out: string, round: number, issue: number, repo = REPO): Seen | undefined => {
  const file = join(out, `round-${round}-${repo.replace("/", "-")}-${issue}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Seen) : undefined;
};

describe("the agent's workspace end to end, through the simulator's git server", () => {
  let loop: Loop;
  let out: string;
  let root: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "esc-ws-e2e-"));
    root = mkdtempSync(join(tmpdir(), "esc-ws-root-"));
    loop = await startLoop({ AGENT_WORKSPACE: "on", WORKSPACE_ROOT: root, AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}"]) });
  });
  afterAll(async () => {
    await loop?.close();
  });

  /** The repository's pull requests from `branch`, as GitHub lists them. */
  async function pulls(
    branch: string,
    repo = REPO,
  ): Promise<Array<{ number: number; state: string; title: string; body: string; head: { ref: string }; base: { ref: string } }>> {
    const token = await installationToken(loop.sim, repo, { pull_requests: "read" });
    const response = await fetch(`${loop.sim.apiUrl}/repos/${repo}/pulls?state=all&head=${repo.split("/")[0]}:${branch}`, {
      headers: { authorization: `token ${token}` },
    });
    return (await response.json()) as never;
  }

  it("round 0's uncommitted edit is on the branch after it asks; round 1 starts there, pushes with its token, and the token is nowhere", async () => {
    const { sim } = loop;
    await sim.seedGit(REPO, { "README.md": "# widgets\n", "src/app.ts": "export const lookups = 1;\n" });
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache the lookups.", author: "maintainer" }).number;
    sim.comment(REPO, issue, "maintainer", "/agent");
    const branch = `escalation/issue-${issue}`;

    const ask = await waitFor("the agent's question", () => sim.comments(REPO, issue).find((c) => parseAskComment(c.body) !== undefined), 30_000);
    const round0 = await waitFor("round 0's record", () => seen(out, 0, issue));
    expect(round0.branch).toBe(branch);
    expect(round0.origin).toBe(`${sim.url}/${REPO}.git`);
    expect(round0.app).toBe("export const lookups = 1;\n");
    expect(round0.env).toMatchObject({ ESCALATION_BRANCH: branch, ESCALATION_BASE: "main", GITHUB_SERVER_URL: sim.url });
    expect(round0.task).toContain(`on the branch \`${branch}\``);
    expect(round0.task).toContain("nothing is lost");
    // Before the round is recorded as ended, the work it left is on the branch.
    const wip = await waitFor("round 0's work on the branch", () => sim.fileAt(REPO, branch, "NOTES.md"), 30_000);
    expect(wip).toBe("Asked which cache to use.\n");
    expect(await sim.fileAt(REPO, branch, "src/app.ts")).toBe('export const lookups = 1;\nexport const cache = "sqlite";\n');
    expect((await sim.gitLog(REPO, branch))[0]).toMatchObject({ subject: "work in progress, round 0", author: sim.botLogin });
    expect(await sim.fileAt(REPO, "main", "NOTES.md")).toBeUndefined();
    await waitFor("the awaiting-human label", () => sim.issue(REPO, issue).labels.includes("awaiting-human"));

    sim.comment(REPO, issue, "maintainer", "SQLite");
    const round1 = await waitFor("round 1's record", () => seen(out, 1, issue), 30_000);
    expect(round1.cwd).toBe(round0.cwd);
    expect(round1.branch).toBe(branch);
    expect(round1.app).toBe('export const lookups = 1;\nexport const cache = "sqlite";\n');
    expect(round1.notes).toBe("Asked which cache to use.\n");
    expect(round1.status).toBe("");
    expect(round1.task).toContain("Which cache should the lookups use?");
    // `git push origin HEAD` worked with the agent's own token and environment.
    const head = await waitFor(
      "the agent's own push",
      async () => ((await sim.gitLog(REPO, branch))[0]?.subject === "the agent's own commit" ? true : undefined),
      30_000,
    );
    expect(head).toBe(true);
    expect(await sim.fileAt(REPO, branch, "DONE.md")).toBe("Finished in round 1.\n");
    await waitFor("the label off after round 1", () => !sim.issue(REPO, issue).labels.includes("awaiting-human"), 30_000);

    // It finished without asking: exactly one pull request, from the branch, closing the issue.
    const opened = await waitFor("the pull request", async () => ((await pulls(branch)).length > 0 ? pulls(branch) : undefined), 30_000);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ state: "open", title: "Add a cache", head: { ref: branch }, base: { ref: "main" } });
    expect(opened[0]!.body).toContain(`Closes #${issue}`);
    // A redelivered answer and a repeated round open no second one.
    const answer = sim.deliveries.filter((d) => d.event === "issue_comment" && d.action === "created").at(-1)!;
    expect(await sim.redeliver(answer.id)).toBeLessThan(300);
    const round2 = new Promise<void>((resolve) => loop.app.services.events.on("agent.exited", (e) => e.issue === issue && e.round === 2 && resolve()));
    sim.comment(REPO, issue, "maintainer", "/retry");
    await round2; // notified once the round's work is pushed and its pull request looked up
    expect(await sim.fileAt(REPO, branch, "DONE.md")).toBe("Finished in round 2.\n");
    expect(await pulls(branch)).toHaveLength(1);
    expect(await pulls(`${branch}-round-2`)).toHaveLength(0);

    const token = round1.env.GITHUB_TOKEN!;
    expect(token).toMatch(/^ghs_/);
    const forms = [token, basicAuthorization(token).slice("Basic ".length)];
    for (const file of allFiles(round1.cwd)) {
      const text = readFileSync(file, "latin1");
      expect(
        forms.some((f) => text.includes(f)),
        file,
      ).toBe(false);
    }
    for (const comment of sim.comments(REPO, issue)) expect(forms.some((f) => comment.body.includes(f))).toBe(false);
    expect(ask.body).not.toContain(token);
  }, 120_000);

  it("with `pull_request: agent` the agent's token may open the pull request and the app opens none; elsewhere the token may not", async () => {
    const { sim } = loop;
    sim.addRepo("acme/self");
    sim.setPermission("acme/self", "maintainer", "write");
    sim.setFile("acme/self", ".github/escalation.yml", "workspace:\n  pull_request: agent\n");
    await sim.seedGit("acme/self", { "README.md": "# self\n" });
    const issue = sim.createIssue("acme/self", { title: "Deliver it yourself [open-pr]", body: "", author: "maintainer" }).number;
    const exited = new Promise<void>((resolve) => loop.app.services.events.on("agent.exited", (e) => e.repo === "acme/self" && e.issue === issue && resolve()));
    sim.comment("acme/self", issue, "maintainer", "/agent");
    await exited; // notified once the round's work is pushed and the app's delivery was decided
    const run = await waitFor("the agent's record", () => seen(out, 0, issue, "acme/self"));
    expect(run.openedPr, JSON.stringify(run)).toBe(201);
    expect(run.task).toContain("Opening its pull request into `main` is yours");
    const opened = await pulls(`escalation/issue-${issue}`, "acme/self");
    expect(opened.map((p) => p.title)).toEqual(["The agent's own pull request"]);

    // With the default (the app opens it), the agent's token has no pull_requests: write.
    const other = sim.createIssue(REPO, { title: "Not yours to open [open-pr]", body: "", author: "maintainer" }).number;
    const otherExited = new Promise<void>((resolve) => loop.app.services.events.on("agent.exited", (e) => e.repo === REPO && e.issue === other && resolve()));
    sim.comment(REPO, other, "maintainer", "/agent");
    await otherExited;
    expect((await waitFor("the other agent's record", () => seen(out, 0, other))).openedPr).toBe(403);
    expect((await pulls(`escalation/issue-${other}`)).map((p) => p.title)).toEqual([expect.not.stringMatching(/agent's own/)]);
  }, 90_000);

  it("a private repository is cloned with the narrowed token, and a repository that turns the workspace off gets a fresh directory", async () => {
    const { sim } = loop;
    sim.addRepo("acme/private", { private: true });
    sim.setPermission("acme/private", "maintainer", "write");
    await sim.seedGit("acme/private", { "secret.txt": "only for the installation\n" });
    const issue = sim.createIssue("acme/private", { title: "Private work", body: "", author: "maintainer" }).number;
    sim.comment("acme/private", issue, "maintainer", "/agent");
    const run = await waitFor("the private repository's round 0", () => seen(out, 0, issue, "acme/private"), 30_000);
    expect(readFileSync(join(run.cwd, "secret.txt"), "utf8")).toBe("only for the installation\n");
    expect(run.origin).toBe(`${sim.url}/acme/private.git`);

    sim.addRepo("acme/plain");
    sim.setPermission("acme/plain", "maintainer", "write");
    sim.setFile("acme/plain", ".github/escalation.yml", "workspace:\n  enabled: false\n");
    const plainIssue = sim.createIssue("acme/plain", { title: "No checkout", body: "", author: "maintainer" }).number;
    sim.comment("acme/plain", plainIssue, "maintainer", "/agent");
    const plain = await waitFor("the plain repository's round 0", () => seen(out, 0, plainIssue, "acme/plain"), 30_000);
    expect(plain.origin).toBeNull();
    expect(plain.cwd.startsWith(root)).toBe(false);
    expect(plain.env).not.toHaveProperty("ESCALATION_BRANCH");
    expect(plain.task).not.toContain("## Where the code is");
  }, 60_000);

  it("an agent stopped by /stop leaves its edit on the branch, and the status comment says where", async () => {
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Long work [sleep]", body: "", author: "maintainer" }).number;
    sim.comment(REPO, issue, "maintainer", "/agent");
    await waitFor("the agent running", () => seen(out, 0, issue), 30_000);
    sim.comment(REPO, issue, "maintainer", "/stop");
    const branch = `escalation/issue-${issue}`;
    expect(await waitFor("the stopped agent's edit on the branch", () => sim.fileAt(REPO, branch, "HALFWAY.md"), 30_000)).toBe("stopped halfway\n");
    const status = () => sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && c.body.startsWith("### 🤖 Escalation status"))?.body ?? "";
    await waitFor("the stop on the status comment", () => status().includes(`work pushed to \`${branch}\``), 30_000);
  }, 60_000);

  it("when a human pushed to the branch during the round, the work goes to a round branch; the status comment and the next round's task say so", async () => {
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Raced work [sleep]", body: "", author: "maintainer" }).number;
    const branch = `escalation/issue-${issue}`;
    sim.comment(REPO, issue, "maintainer", "/agent");
    await waitFor("the agent running", () => seen(out, 0, issue), 30_000);
    await sim.pushToBranch(REPO, branch, { "HUMAN.md": "pushed by a person\n" });
    sim.comment(REPO, issue, "maintainer", "/stop");
    const roundBranch = `${branch}-round-0`;
    expect(await waitFor("the work on the round branch", () => sim.fileAt(REPO, roundBranch, "HALFWAY.md"), 30_000)).toBe("stopped halfway\n");
    expect(await sim.fileAt(REPO, branch, "HALFWAY.md")).toBeUndefined();
    const status = () => sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && c.body.startsWith("### 🤖 Escalation status"))?.body ?? "";
    await waitFor(
      "the round branch on the status comment",
      () => status().includes(`the branch had moved meanwhile, so the work was pushed to \`${roundBranch}\` instead`),
      30_000,
    );
    sim.comment(REPO, issue, "maintainer", "/retry");
    const next = await waitFor("the next round", () => seen(out, 1, issue), 30_000);
    expect(next.task).toContain(`so that work is on\n\`${roundBranch}\` instead`);
    expect(readFileSync(join(next.cwd, "HUMAN.md"), "utf8")).toBe("pushed by a person\n");
    sim.comment(REPO, issue, "maintainer", "/stop");
  }, 90_000);

  it("on a pull request's own conversation, the checkout is on the pull request's head branch and the work is pushed there", async () => {
    const { sim } = loop;
    const contributor = sim.addUser("contributor");
    sim.setPermission(REPO, "contributor", "write");
    await sim.pushToBranch(REPO, "feature/search", { "search.ts": "export const search = 1;\n" });
    const response = await fetch(`${sim.apiUrl}/repos/${REPO}/pulls`, {
      method: "POST",
      headers: { authorization: `token ${contributor.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Search", head: "feature/search", base: "main", body: "Adds search." }),
    });
    expect(response.status).toBe(201);
    const { number } = (await response.json()) as { number: number };
    const exited = new Promise<void>((resolve) => loop.app.services.events.on("agent.exited", (e) => e.issue === number && resolve()));
    sim.comment(REPO, number, "maintainer", "/agent");
    const run = await waitFor("the agent on the pull request", () => seen(out, 0, number), 30_000);
    expect(run.branch).toBe("feature/search");
    expect(run.env).toMatchObject({ ESCALATION_BRANCH: "feature/search", ESCALATION_BASE: "main" });
    expect(readFileSync(join(run.cwd, "search.ts"), "utf8")).toBe("export const search = 1;\n");
    await exited;
    expect(await sim.fileAt(REPO, "feature/search", "NOTES.md")).toBe("Asked which cache to use.\n");
    expect(await sim.branches(REPO)).not.toHaveProperty(`escalation/issue-${number}`);
  }, 60_000);

  it("an installation that has not granted Contents gets one ⚠️ comment naming it and where to grant it, and no agent runs", async () => {
    const { sim } = loop;
    sim.addRepo("acme/locked");
    sim.setPermission("acme/locked", "maintainer", "write");
    sim.setAppPermissions({ issues: "write", metadata: "read" });
    try {
      const issue = sim.createIssue("acme/locked", { title: "Locked", body: "", author: "maintainer" }).number;
      sim.comment("acme/locked", issue, "maintainer", "/agent");
      const warning = await waitFor(
        "the ⚠️ comment",
        () => sim.comments("acme/locked", issue).find((c) => c.user.login === sim.botLogin && c.body.startsWith("⚠️")),
        30_000,
      );
      expect(warning.body).toContain("**Contents: write**");
      expect(warning.body).toContain("Configure");
      expect(warning.body).toContain("`/retry`");
      expect(warning.body).not.toMatch(/ghs_|at .*\.js/);
      // The comment is posted instead of starting the agent: no run of it can follow.
      expect(seen(out, 0, issue, "acme/locked")).toBeUndefined();
      expect(sim.comments("acme/locked", issue).filter((c) => c.body.startsWith("⚠️"))).toHaveLength(1);
    } finally {
      sim.setAppPermissions({ issues: "write", metadata: "read", contents: "write", pull_requests: "write" });
    }
  }, 60_000);
});
