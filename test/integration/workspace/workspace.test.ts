import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitHubSimulator } from "../../../tools/simulator/index.js";
import { WorkspaceError } from "../../../src/errors.js";
import { git } from "../../../src/workspace/git.js";
import { basicAuthorization } from "../../../src/workspace/gitCredentials.js";
import { prepareWorkspace, type PrepareInput } from "../../../src/workspace/prepareWorkspace.js";
import { saveWork } from "../../../src/workspace/saveWork.js";
import { installationToken, runGit } from "../../support/gitServer.js";
import { allFiles } from "../../support/files.js";

const PRIVATE = "acme/secret";
const PUBLIC = "acme/open";
const BOT = { name: "escalation[bot]", email: "escalation[bot]@users.noreply.github.com" };
const LIMITS = { maxBytes: 1024 * 1024, maxFiles: 100 };

describe("the simulator's git server and the workspace", () => {
  let sim: GitHubSimulator;
  let root: string;
  let token: string;
  let cloneUrl: string;

  beforeAll(async () => {
    sim = await GitHubSimulator.start({ webhookSecret: "s" });
    sim.addRepo(PRIVATE, { private: true });
    sim.addRepo(PUBLIC);
    await sim.seedGit(PRIVATE, { "README.md": "# secret\n", "src/app.ts": "export const answer = 41;\n" });
    token = await installationToken(sim, PRIVATE, { contents: "write", issues: "write" });
    cloneUrl = `${sim.url}/${PRIVATE}.git`;
    root = mkdtempSync(join(tmpdir(), "esc-ws-"));
  });

  afterAll(async () => {
    await sim.stop();
  });

  const input = (issue: number, round: number, overrides: Partial<PrepareInput> = {}): PrepareInput => ({
    root,
    repo: PRIVATE,
    issue,
    round,
    cloneUrl,
    base: "main",
    branch: `escalation/issue-${issue}`,
    token,
    identity: BOT,
    limits: LIMITS,
    ...overrides,
  });
  const save = (checkout: string, issue: number, round: number, extra: { retryDelaysMs?: number[]; limits?: typeof LIMITS } = {}) =>
    saveWork({
      checkout,
      cloneUrl,
      token,
      branch: `escalation/issue-${issue}`,
      base: "main",
      round,
      identity: BOT,
      limits: extra.limits ?? LIMITS,
      retryDelaysMs: extra.retryDelaysMs ?? [50],
    });

  it("refuses a private repository without a token, and a wrong token, as GitHub does", async () => {
    const anonymous = await fetch(`${cloneUrl}/info/refs?service=git-upload-pack`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="GitHub"');
    const wrong = await fetch(`${cloneUrl}/info/refs?service=git-upload-pack`, { headers: { authorization: basicAuthorization("ghs_not-a-token-at-all") } });
    expect(wrong.status).toBe(401);
    const publicRefs = await fetch(`${sim.url}/${PUBLIC}.git/info/refs?service=git-upload-pack`);
    expect(publicRefs.status).toBe(200);
    const readOnly = await installationToken(sim, PRIVATE, { contents: "read" });
    const push = await fetch(`${cloneUrl}/info/refs?service=git-receive-pack`, { headers: { authorization: basicAuthorization(readOnly) } });
    expect(push.status).toBe(403);
    const otherRepo = await installationToken(sim, PUBLIC, { contents: "write" });
    const hidden = await fetch(`${cloneUrl}/info/refs?service=git-upload-pack`, { headers: { authorization: basicAuthorization(otherRepo) } });
    expect(hidden.status).toBe(404);
  });

  it("refuses to prepare a workspace with a token that cannot read contents, saying it was refused", async () => {
    const issuesOnly = await installationToken(sim, PRIVATE, { issues: "write" });
    const refused = await prepareWorkspace(input(90, 0, { token: issuesOnly })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkspaceError);
    expect((refused as WorkspaceError).reason).toBe("refused");
    expect((refused as Error).message).not.toContain(issuesOnly);
  });

  it("clones with the token, creates the branch from the base, commits what the agent left and pushes it; the next round starts there", async () => {
    const round0 = await prepareWorkspace(input(1, 0));
    expect(round0.newBranch).toBe(true);
    expect(await runGit(["rev-parse", "--abbrev-ref", "HEAD"], { cwd: round0.checkout })).toBe("escalation/issue-1");
    expect(await runGit(["remote", "get-url", "origin"], { cwd: round0.checkout })).toBe(cloneUrl);
    expect(readFileSync(join(round0.checkout, "src/app.ts"), "utf8")).toContain("41");
    // The agent edits and exits without committing.
    writeFileSync(join(round0.checkout, "src/app.ts"), "export const answer = 42;\n");
    writeFileSync(join(round0.checkout, "NOTES.md"), "halfway\n");
    const saved = await round0.save();
    expect(saved).toMatchObject({ committed: true, pushedTo: "escalation/issue-1", divertedTo: undefined });
    expect(await sim.fileAt(PRIVATE, "escalation/issue-1", "src/app.ts")).toBe("export const answer = 42;\n");
    const [wip] = await sim.gitLog(PRIVATE, "escalation/issue-1");
    expect(wip).toMatchObject({ subject: "work in progress, round 0", author: BOT.name, email: BOT.email });
    expect((await sim.branches(PRIVATE)).main).toBe((await sim.gitLog(PRIVATE, "main"))[0]!.sha);

    // An agent that pointed origin elsewhere, with a credential in the URL: the next round's origin is the clone URL again.
    await runGit(["remote", "set-url", "origin", `http://x-access-token:${token}@127.0.0.1:9/elsewhere.git`], { cwd: round0.checkout });
    writeFileSync(join(round0.checkout, "LATE.md"), "written after the save\n");
    const round1 = await prepareWorkspace(input(1, 1));
    expect(await runGit(["remote", "get-url", "origin"], { cwd: round1.checkout })).toBe(cloneUrl);
    expect(round1.resumed).toMatchObject({ committed: true, pushedTo: "escalation/issue-1" });
    expect(await sim.fileAt(PRIVATE, "escalation/issue-1", "LATE.md")).toBe("written after the save\n");
    expect(round1.newBranch).toBe(false);
    expect(round1.checkout).toBe(round0.checkout);
    expect(readFileSync(join(round1.checkout, "src/app.ts"), "utf8")).toBe("export const answer = 42;\n");
    expect(await runGit(["status", "--porcelain"], { cwd: round1.checkout })).toBe("");
    // Nothing new: nothing is committed or pushed.
    expect(await save(round1.checkout, 1, 1)).toMatchObject({ committed: false, pushedTo: undefined });

    // The token is nowhere in the checkout (its .git included), raw or as its header.
    const header = basicAuthorization(token).slice("Basic ".length);
    for (const file of allFiles(round1.checkout)) {
      const text = readFileSync(file, "latin1");
      expect(text.includes(token) || text.includes(header), file).toBe(false);
    }
    expect(readFileSync(join(round1.checkout, ".git/config"), "utf8")).not.toMatch(/extraheader|x-access-token/i);
  });

  it("runs none of the hooks, file-system monitor or credential helper the agent wrote into the checkout", async () => {
    const round0 = await prepareWorkspace(input(7, 0));
    const marker = join(root, "planted-ran");
    const planted = `#!/bin/sh\ntouch ${marker}\n`;
    writeFileSync(join(round0.checkout, ".git/hooks/pre-commit"), planted, { mode: 0o755 });
    writeFileSync(join(round0.checkout, "planted.sh"), planted, { mode: 0o755 });
    await runGit(["config", "core.fsmonitor", join(round0.checkout, "planted.sh")], { cwd: round0.checkout });
    await runGit(["config", "credential.helper", `!${join(round0.checkout, "planted.sh")}`], { cwd: round0.checkout });
    writeFileSync(join(round0.checkout, "work.txt"), "work\n");
    expect(await round0.save()).toMatchObject({ committed: true, pushedTo: "escalation/issue-7" });
    expect(existsSync(marker)).toBe(false);
  });

  it("says so when git is not installed", async () => {
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      await expect(git(["--version"])).rejects.toThrow(
        "git is not installed on the app's host (it is not on the PATH): install git, or set AGENT_WORKSPACE=off.",
      );
    } finally {
      process.env.PATH = path;
    }
  });

  it("pushes no branch for a round that left nothing", async () => {
    const round0 = await prepareWorkspace(input(6, 0));
    expect(await round0.save()).toMatchObject({ committed: false, pushedTo: undefined });
    await prepareWorkspace(input(6, 1));
    expect(await sim.branches(PRIVATE)).not.toHaveProperty("escalation/issue-6");
  });

  it("keeps the agent's own commits under the work-in-progress commit", async () => {
    const round0 = await prepareWorkspace(input(2, 0));
    const env = { GIT_AUTHOR_NAME: "Agent", GIT_AUTHOR_EMAIL: "a@example.invalid", GIT_COMMITTER_NAME: "Agent", GIT_COMMITTER_EMAIL: "a@example.invalid" };
    writeFileSync(join(round0.checkout, "a.txt"), "agent's\n");
    await runGit(["add", "a.txt"], { cwd: round0.checkout });
    await runGit(["commit", "-qm", "the agent's commit"], { cwd: round0.checkout, env });
    writeFileSync(join(round0.checkout, "b.txt"), "left over\n");
    await save(round0.checkout, 2, 0);
    expect((await sim.gitLog(PRIVATE, "escalation/issue-2")).slice(0, 2).map((c) => c.subject)).toEqual(["work in progress, round 0", "the agent's commit"]);
  });

  it("sends the work to a round branch when a human pushed to the branch meanwhile, and tells the next round", async () => {
    const round0 = await prepareWorkspace(input(3, 0));
    writeFileSync(join(round0.checkout, "first.txt"), "round 0\n");
    await save(round0.checkout, 3, 0);
    const round1 = await prepareWorkspace(input(3, 1));
    await sim.pushToBranch(PRIVATE, "escalation/issue-3", { "human.txt": "mine\n" });
    writeFileSync(join(round1.checkout, "second.txt"), "round 1\n");
    const saved = await round1.save();
    expect(saved).toMatchObject({ committed: true, pushedTo: "escalation/issue-3-round-1", divertedTo: "escalation/issue-3-round-1" });
    const round2 = await prepareWorkspace(input(3, 2));
    expect(round2.divertedTo).toBe("escalation/issue-3-round-1");
    expect(readFileSync(join(round2.checkout, "human.txt"), "utf8")).toBe("mine\n");
    expect((await prepareWorkspace(input(3, 3))).divertedTo).toBeUndefined();
    expect(await sim.fileAt(PRIVATE, "escalation/issue-3-round-1", "second.txt")).toBe("round 1\n");
    expect(await sim.fileAt(PRIVATE, "escalation/issue-3", "second.txt")).toBeUndefined();
    expect(await sim.fileAt(PRIVATE, "escalation/issue-3", "human.txt")).toBe("mine\n");
  });

  it("pushes at the next preparation what a crash left between the agent's exit and the push", async () => {
    const round0 = await prepareWorkspace(input(4, 0));
    writeFileSync(join(round0.checkout, "unsaved.txt"), "would be lost\n");
    // The app died here: no saveWork. The retry (or the next round) prepares the workspace again.
    const again = await prepareWorkspace(input(4, 1));
    expect(again.resumed).toMatchObject({ committed: true, pushedTo: "escalation/issue-4" });
    expect(await sim.fileAt(PRIVATE, "escalation/issue-4", "unsaved.txt")).toBe("would be lost\n");
    expect((await sim.gitLog(PRIVATE, "escalation/issue-4"))[0]!.subject).toBe("work in progress, round 0");
    expect(readFileSync(join(again.checkout, "unsaved.txt"), "utf8")).toBe("would be lost\n");
  });

  it("refuses changes over a limit, naming it", async () => {
    const round0 = await prepareWorkspace(input(5, 0));
    for (const name of ["1", "2", "3"]) writeFileSync(join(round0.checkout, `${name}.txt`), name);
    await expect(save(round0.checkout, 5, 0, { limits: { maxBytes: 1_000_000, maxFiles: 2 } })).rejects.toThrow(
      /3 changed files, over WORKSPACE_MAX_FILES \(2\)/,
    );
    await expect(save(round0.checkout, 5, 0, { limits: { maxBytes: 2, maxFiles: 100 } })).rejects.toThrow(/over WORKSPACE_MAX_BYTES \(2\)/);
  });
});
