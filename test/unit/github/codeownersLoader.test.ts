import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodeownersLoader } from "../../../src/github/codeownersLoader.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";

/** Octokit sends the whole `{path}` as one encoded segment (`.github%2FCODEOWNERS`), which GitHub accepts. */
const contents = (path: string) => `${V3}/repos/acme/widgets/contents/${encodeURIComponent(path)}`;
const RAW = "application/vnd.github.raw";

describe("CodeownersLoader, against GitHub's contents API", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  /** GitHub's raw answer for a file. */
  const file = (path: string, text: string) =>
    github.scope
      .get(contents(path))
      .matchHeader("accept", RAW)
      .reply(200, text, { "content-type": `${RAW}; charset=utf-8` });
  const missing = (path: string, status = 404, headers: Record<string, string> = {}) =>
    github.scope.get(contents(path)).reply(status, { message: "Not Found" }, headers);

  it("takes the first file where GitHub looks (.github/, the root, docs/) and caches it per repository", async () => {
    const { octokit, built } = github.installation();
    missing(".github/CODEOWNERS");
    file("CODEOWNERS", "* @root");
    const loader = new CodeownersLoader(60_000);
    const first = await loader.load(octokit, "acme/widgets");
    expect(first?.file).toBe("CODEOWNERS");
    expect(first?.rules.map((r) => r.users)).toEqual([["root"]]);
    expect(await loader.load(octokit, "ACME/Widgets")).toBe(first);
    expect(built.count).toBe(1); // a cache hit builds no installation Octokit
  });

  it("no file, or no permission to read one (403), is no CODEOWNERS, remembered too", async () => {
    const { octokit } = github.installation();
    missing(".github/CODEOWNERS", 403);
    missing("CODEOWNERS");
    missing("docs/CODEOWNERS", 403);
    const loader = new CodeownersLoader(60_000);
    expect(await loader.load(octokit, "acme/widgets")).toBeUndefined();
    expect(await loader.load(octokit, "acme/widgets")).toBeUndefined();
  });

  it.each([
    ["a server error (502)", 502, {}],
    ["a rate limit (403 with no requests left)", 403, rateLimited],
  ])("%s is thrown, not read as no file", async (_name, status, headers) => {
    const { octokit } = github.installation();
    missing(".github/CODEOWNERS", status, headers);
    await expect(new CodeownersLoader(60_000).load(octokit, "acme/widgets")).rejects.toMatchObject({ status });
  });

  it("reads the file again once the cache has expired", async () => {
    const { octokit } = github.installation();
    file(".github/CODEOWNERS", "* @before");
    file(".github/CODEOWNERS", "* @after");
    const loader = new CodeownersLoader(0);
    expect((await loader.load(octokit, "acme/widgets"))?.rules[0]?.users).toEqual(["before"]);
    expect((await loader.load(octokit, "acme/widgets"))?.rules[0]?.users).toEqual(["after"]);
  });
});
