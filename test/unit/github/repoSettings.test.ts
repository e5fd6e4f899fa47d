import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serverDefaults } from "../../../src/config/repoConfig.js";
import { RepoSettingsLoader } from "../../../src/github/repoSettings.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";

const RAW = "application/vnd.github.v3.raw";
/** Octokit sends the whole `{path}` as one encoded segment, which GitHub accepts. */
const contents = (repo: string) => `${V3}/repos/acme/${repo}/contents/${encodeURIComponent(".github/escalation.yml")}`;

describe("RepoSettingsLoader, against GitHub's contents API through Probot's config loader", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  const loader = (ttlMs = 60_000) => new RepoSettingsLoader(serverDefaults(github.config), ttlMs);
  const file = (repo: string, yaml: string) =>
    github.scope
      .get(contents(repo))
      .matchHeader("accept", RAW)
      .reply(200, yaml, { "content-type": `${RAW}; charset=utf-8` });
  const missing = (repo: string) => github.scope.get(contents(repo)).reply(404, { message: "Not Found" });

  it("reads the repository's .github/escalation.yml and caches it per repository", async () => {
    const { octokit, built } = github.installation();
    file("widgets", "labels:\n  awaiting: needs-human\n");
    const settings = loader();
    const first = await settings.load(octokit, "acme/widgets");
    expect(first).toEqual({ settings: expect.objectContaining({ labels: { awaiting: "needs-human", dispatch: github.config.labels.dispatch } }) });
    expect(await settings.load(octokit, "ACME/Widgets")).toBe(first);
    expect(built.count).toBe(1);
  });

  it("without one, reads the organization's (the .github repository's), as Probot does", async () => {
    const { octokit } = github.installation();
    missing("widgets");
    file(".github", "max_rounds: 3\n");
    expect((await loader().load(octokit, "acme/widgets")).settings.maxRounds).toBe(3);
  });

  it("with neither, the server's defaults and no problem", async () => {
    const { octokit } = github.installation();
    missing("widgets");
    missing(".github");
    expect(await loader().load(octokit, "acme/widgets")).toEqual({ settings: serverDefaults(github.config) });
  });

  it("a file that is not valid YAML, or has a wrong value, is a problem to report; the defaults apply", async () => {
    const { octokit } = github.installation();
    file("widgets", "labels: [unclosed\n");
    file("gadgets", "max_rounds: 0\n");
    const broken = await loader().load(octokit, "acme/widgets");
    expect(broken.settings).toEqual(serverDefaults(github.config));
    expect(broken.problem).toMatch(/^the file is not valid YAML: /);
    const wrong = await loader().load(octokit, "acme/gadgets");
    expect(wrong.settings).toEqual(serverDefaults(github.config));
    expect(wrong.problem).toMatch(/max_rounds/);
  });

  it.each([
    ["a rate limit (403)", 403, { message: "API rate limit exceeded for installation ID 4242." }, rateLimited],
    ["a server error (502)", 502, { message: "Server Error" }, {}],
  ])("%s is thrown: not a problem with the file, and not cached", async (_name, status, body, headers) => {
    const { octokit } = github.installation();
    github.scope.get(contents("widgets")).reply(status, body, headers);
    file("widgets", "max_rounds: 3\n");
    const settings = loader();
    await expect(settings.load(octokit, "acme/widgets")).rejects.toMatchObject({ status });
    expect((await settings.load(octokit, "acme/widgets")).settings.maxRounds).toBe(3);
  });
});
