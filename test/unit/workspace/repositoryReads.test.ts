import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubError } from "../../../src/errors.js";
import { pullRequestBranch } from "../../../src/workspace/pullRequestBranch.js";
import { repositoryInfoLoader } from "../../../src/workspace/repositoryInfo.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";

describe("the workspace's reads of a repository, against GitHub's API", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  describe("repositoryInfoLoader (GET /repos/{owner}/{repo})", () => {
    it("reads the clone URL and default branch with the installation's token, once per repository while cached", async () => {
      const { octokit, built } = github.installation();
      github.scope
        .get(`${V3}/repos/acme/widgets`)
        .matchHeader("authorization", "token ghs_installation4242")
        .reply(200, { full_name: "acme/widgets", clone_url: "https://github.example/acme/widgets.git", default_branch: "trunk" });
      const info = repositoryInfoLoader(60_000);
      expect(await info(octokit, "acme/widgets")).toEqual({ cloneUrl: "https://github.example/acme/widgets.git", defaultBranch: "trunk" });
      expect(await info(octokit, "ACME/widgets")).toEqual({ cloneUrl: "https://github.example/acme/widgets.git", defaultBranch: "trunk" });
      expect(built.count).toBe(1);
    });

    it.each([
      ["an App not installed on it (404)", 404, { message: "Not Found" }, {}],
      ["a rate limit (403)", 403, { message: "API rate limit exceeded for installation ID 4242." }, rateLimited],
    ])("%s is a GitHubError with GitHub's status", async (_name, status, body, headers) => {
      github.scope.get(`${V3}/repos/acme/widgets`).reply(status, body, headers);
      const error = await repositoryInfoLoader(60_000)(github.installation().octokit, "acme/widgets").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GitHubError);
      expect(error).toMatchObject({
        status,
        message: `Could not read the repository acme/widgets (GET /repos/acme/widgets): ${body.message}. Check that the App is installed on it.`,
      });
    });

    it("an answer without clone_url (not GitHub's API) is a GitHubError saying so", async () => {
      github.scope.get(`${V3}/repos/acme/widgets`).reply(200, { full_name: "acme/widgets" });
      await expect(repositoryInfoLoader(60_000)(github.installation().octokit, "acme/widgets")).rejects.toThrow(
        /returned no clone_url or default_branch; is GHE_HOST a GitHub API\?/,
      );
    });
  });

  describe("pullRequestBranch (GET /repos/{owner}/{repo}/pulls/{number}); each test its own repository, as answers are kept for the process", () => {
    const head = (repo: string) => ({ head: { ref: "feature/cache", repo: { full_name: repo } }, base: { ref: "main" } });

    it("a pull request's own branch and base, asked once", async () => {
      const { octokit } = github.installation();
      github.scope.get(`${V3}/repos/acme/branch-own/pulls/5`).matchHeader("authorization", "token ghs_installation4242").reply(200, head("acme/branch-own"));
      expect(await pullRequestBranch(octokit, "acme/branch-own", 5)).toEqual({ head: "feature/cache", base: "main" });
      expect(await pullRequestBranch(octokit, "acme/branch-own", 5)).toEqual({ head: "feature/cache", base: "main" });
    });

    it("a fork's branch (not pushable with the repository's token), or an issue (404): none, asked once", async () => {
      const { octokit } = github.installation();
      github.scope.get(`${V3}/repos/acme/branch-fork/pulls/5`).reply(200, head("someone/branch-fork"));
      github.scope.get(`${V3}/repos/acme/branch-fork/pulls/6`).reply(404, { message: "Not Found" });
      for (let i = 0; i < 2; i++) {
        expect(await pullRequestBranch(octokit, "acme/branch-fork", 5)).toBeUndefined();
        expect(await pullRequestBranch(octokit, "acme/branch-fork", 6)).toBeUndefined();
      }
    });

    it("without Pull requests: read (403) the app cannot tell: none this time, asked again the next", async () => {
      const { octokit } = github.installation();
      github.scope.get(`${V3}/repos/acme/branch-denied/pulls/5`).reply(403, { message: "Resource not accessible by integration" });
      github.scope.get(`${V3}/repos/acme/branch-denied/pulls/5`).reply(200, head("acme/branch-denied"));
      expect(await pullRequestBranch(octokit, "acme/branch-denied", 5)).toBeUndefined();
      expect(await pullRequestBranch(octokit, "acme/branch-denied", 5)).toEqual({ head: "feature/cache", base: "main" });
    });

    it("a rate limit (403) is thrown, not read as no permission: the round would push to the wrong branch", async () => {
      const { octokit } = github.installation();
      github.scope.get(`${V3}/repos/acme/branch-limited/pulls/5`).reply(403, { message: "API rate limit exceeded for installation ID 4242." }, rateLimited);
      await expect(pullRequestBranch(octokit, "acme/branch-limited", 5)).rejects.toMatchObject({ status: 403 });
    });
  });
});
