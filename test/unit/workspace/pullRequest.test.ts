import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GitHubError } from "../../../src/errors.js";
import type { InstallationOctokit } from "../../../src/github/octokit.js";
import { renderAskComment, validateAsk } from "../../../src/protocol/ask.js";
import { askedSince, deliverPullRequest, type PullRequestInput } from "../../../src/workspace/pullRequest.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";
import { requirePrograms } from "../../support/programs.js";

beforeAll(() => requirePrograms("git"));

const PULLS = `${V3}/repos/acme/widgets/pulls`;
const BRANCH = "escalation/issue-12";
const LOOKUP = { head: `acme:${BRANCH}`, base: "main", state: "all", per_page: "100" };
const pull = (number: number, state: "open" | "closed") => ({
  number,
  state,
  html_url: `https://github.example/acme/widgets/pull/${number}`,
  head: { ref: BRANCH },
  base: { ref: "main" },
});

/** A checkout whose HEAD is `ahead` commits beyond origin/main. */
function checkout(ahead: number): string {
  const dir = mkdtempSync(join(tmpdir(), "pull-request-"));
  const run = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=Agent", "-c", "user.email=agent@example.invalid", "-c", "commit.gpgsign=false", ...args], {
      cwd: dir,
      stdio: "pipe",
    });
  run("init", "-q", "-b", "main");
  run("commit", "-q", "--allow-empty", "-m", "base");
  run("update-ref", "refs/remotes/origin/main", "HEAD");
  for (let i = 0; i < ahead; i++) run("commit", "-q", "--allow-empty", "-m", `work ${i}`);
  return dir;
}

describe("deliverPullRequest, against GitHub's pulls API", () => {
  let github: GitHubApi;
  let octokit: InstallationOctokit;
  let ahead: string;
  let even: string;
  beforeAll(() => {
    ahead = checkout(2);
    even = checkout(0);
  });
  afterAll(() => {
    rmSync(ahead, { recursive: true, force: true });
    rmSync(even, { recursive: true, force: true });
  });
  beforeEach(async () => {
    github = nockGitHub();
    octokit = await github.installation().octokit();
  });
  afterEach(() => github.done());

  const input = (over: Partial<PullRequestInput> = {}): PullRequestInput => ({
    octokit,
    repo: "acme/widgets",
    issue: 12,
    issueTitle: "Add a cache",
    branch: BRANCH,
    base: "main",
    checkout: ahead,
    ...over,
  });

  it("with nothing beyond the base, opens nothing and asks GitHub nothing", async () => {
    expect(await deliverPullRequest(input({ checkout: even }))).toEqual({ kind: "nothing", why: "the branch has no commits beyond main" });
  });

  it("looks the branch's pull request up first, then opens one that closes the issue", async () => {
    github.scope.get(PULLS).query(LOOKUP).reply(200, []);
    github.scope
      .post(PULLS, { title: "Add a cache", head: BRANCH, base: "main", body: `Closes #12\n\nThe agent's work on #12, from the branch \`${BRANCH}\`.` })
      .matchHeader("authorization", "token ghs_installation4242")
      .reply(201, pull(31, "open"));
    expect(await deliverPullRequest(input())).toEqual({ kind: "opened", number: 31, url: "https://github.example/acme/widgets/pull/31" });
  });

  it("titles it after the issue number when the issue has no title", async () => {
    github.scope.get(PULLS).query(LOOKUP).reply(200, []);
    github.scope.post(PULLS, (body: { title: string }) => body.title === "Work on #12").reply(201, pull(31, "open"));
    expect(await deliverPullRequest(input({ issueTitle: "" }))).toMatchObject({ kind: "opened", number: 31 });
  });

  it("an open one (the push updated it) is found again, a closed one is not reopened: no second pull request", async () => {
    github.scope
      .get(PULLS)
      .query(LOOKUP)
      .reply(200, [pull(30, "closed"), pull(31, "open")]);
    github.scope
      .get(PULLS)
      .query(LOOKUP)
      .reply(200, [pull(30, "closed")]);
    expect(await deliverPullRequest(input())).toEqual({ kind: "updated", number: 31, url: "https://github.example/acme/widgets/pull/31" });
    expect(await deliverPullRequest(input())).toEqual({ kind: "closed", number: 30, url: "https://github.example/acme/widgets/pull/30" });
  });

  it("GitHub's 422 for a second pull request of the same head (a repeated job opened it meanwhile): the first is the issue's", async () => {
    github.scope.get(PULLS).query(LOOKUP).reply(200, []);
    const exists = { resource: "PullRequest", code: "custom", message: `A pull request already exists for acme:${BRANCH}.` };
    github.scope.post(PULLS).reply(422, { message: "Validation Failed", errors: [exists] });
    github.scope
      .get(PULLS)
      .query(LOOKUP)
      .reply(200, [pull(31, "open")]);
    expect(await deliverPullRequest(input())).toMatchObject({ kind: "updated", number: 31 });
  });

  it.each([
    ["no Pull requests: write (403)", 403, { message: "Resource not accessible by integration" }, {}, /The App needs the permission Pull requests: write/],
    ["a rate limit (403)", 403, { message: "API rate limit exceeded for installation ID 4242." }, rateLimited, /API rate limit exceeded/],
    ["a server error (502)", 502, { message: "Server Error" }, {}, /Server Error\.$/],
  ])("%s is a GitHubError with GitHub's status", async (_name, status, body, headers, says) => {
    github.scope.get(PULLS).query(LOOKUP).reply(200, []);
    github.scope.post(PULLS).reply(status, body, headers);
    const error = await deliverPullRequest(input()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ status, message: expect.stringMatching(new RegExp(`^Could not open a pull request from ${BRANCH}: `)) });
    expect((error as Error).message).toMatch(says);
  });
});

describe("askedSince, against GitHub's issue comments API", () => {
  let github: GitHubApi;
  let octokit: InstallationOctokit;
  beforeEach(async () => {
    github = nockGitHub();
    octokit = await github.installation().octokit();
  });
  afterEach(() => github.done());

  const COMMENTS = `${V3}/repos/acme/widgets/issues/12/comments`;
  const STARTED = Date.parse("2026-12-04T09:00:00.750Z");
  /** GitHub's timestamps have whole seconds: a second before the round's, rounded down. */
  const SINCE = "2026-12-04T08:59:59.000Z";
  const ask = renderAskComment(validateAsk({ v: 1, id: "ask-0001", round: 0, questions: [{ text: "Which database?" }] }));
  const comment = (id: number, login: string, body: string) => ({
    id,
    body,
    user: { login, type: login.endsWith("[bot]") ? "Bot" : "User" },
    created_at: "2026-12-04T09:00:05Z",
  });
  const isAgent = (login: string) => login === "escalation[bot]";

  it("reads every page since the round started and finds an agent's question on the last", async () => {
    github.scope
      .get(COMMENTS)
      .query({ since: SINCE, per_page: "100" })
      .reply(200, [comment(1, "alice", "a person's comment"), comment(2, "escalation[bot]", "a status, no ask")], {
        link: `<http://127.0.0.9${COMMENTS}?since=${encodeURIComponent(SINCE)}&per_page=100&page=2>; rel="next", <http://127.0.0.9${COMMENTS}?since=${encodeURIComponent(SINCE)}&per_page=100&page=2>; rel="last"`,
      });
    github.scope
      .get(COMMENTS)
      .query({ since: SINCE, per_page: "100", page: "2" })
      .reply(200, [comment(3, "escalation[bot]", ask)]);
    expect(await askedSince(octokit, "acme/widgets", 12, STARTED, new Set(), isAgent)).toBe(true);
  });

  it("a question already known, or one a person wrote, is not a new ask", async () => {
    github.scope
      .get(COMMENTS)
      .query({ since: SINCE, per_page: "100" })
      .reply(200, [comment(3, "escalation[bot]", ask), comment(4, "alice", ask)]);
    expect(await askedSince(octokit, "acme/widgets", 12, STARTED, new Set(["3"]), isAgent)).toBe(false);
  });

  it("a rate limit is thrown, not read as no question", async () => {
    github.scope.get(COMMENTS).query(true).reply(403, { message: "API rate limit exceeded for installation ID 4242." }, rateLimited);
    await expect(askedSince(octokit, "acme/widgets", 12, STARTED, new Set(), isAgent)).rejects.toMatchObject({ status: 403 });
  });
});
