import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InstallationOctokit } from "../../../src/github/octokit.js";
import { activeRepos } from "../../../src/reconcile/activeRepos.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";

const SINCE = "2026-12-04T08:00:00Z";
const item = (repo: string) => ({ repository_url: `https://github.example/api/v3/repos/${repo}` });
const page = (total: number, repos: string[], incomplete = false) => ({ total_count: total, incomplete_results: incomplete, items: repos.map(item) });
const query = (login: string, kind: "org" | "user", pageNumber: number) => ({
  q: `${kind}:${login} updated:>=${SINCE}`,
  sort: "updated",
  order: "desc",
  per_page: "100",
  page: String(pageNumber),
});
const organization = { id: 7, account: { login: "acme", type: "Organization" } };

describe("activeRepos, against GitHub's issue search", () => {
  let github: GitHubApi;
  let octokit: InstallationOctokit;
  beforeEach(async () => {
    github = nockGitHub();
    octokit = await github.installation(7).octokit();
  });
  afterEach(() => github.done());

  it("one search for the whole organization, page by page until the total is read", async () => {
    const first = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? "acme/widgets" : "acme/gadgets"));
    github.scope
      .get(`${V3}/search/issues`)
      .query(query("acme", "org", 1))
      .matchHeader("authorization", "token ghs_installation7")
      .reply(200, page(101, first));
    github.scope
      .get(`${V3}/search/issues`)
      .query(query("acme", "org", 2))
      .reply(200, page(101, ["acme/docs"]));
    expect(await activeRepos(octokit, organization, SINCE)).toEqual(new Set(["acme/widgets", "acme/gadgets", "acme/docs"]));
  });

  it("searches a user's account with user:, and an idle account is an empty set", async () => {
    github.scope
      .get(`${V3}/search/issues`)
      .query(query("alice", "user", 1))
      .reply(200, page(0, []));
    expect(await activeRepos(octokit, { id: 7, account: { login: "alice", type: "User" } }, SINCE)).toEqual(new Set());
  });

  it.each([
    ["incomplete results", page(3, ["acme/widgets"], true)],
    ["more results than the search returns", page(1001, ["acme/widgets"])],
  ])("cannot say on %s: undefined, so every repository is read", async (_name, answer) => {
    github.scope
      .get(`${V3}/search/issues`)
      .query(query("acme", "org", 1))
      .reply(200, answer);
    expect(await activeRepos(octokit, organization, SINCE)).toBeUndefined();
  });

  it("an installation without an account asks nothing", async () => {
    expect(await activeRepos(octokit, { id: 7, account: null }, SINCE)).toBeUndefined();
  });

  it("the search's own rate limit (403) is thrown", async () => {
    github.scope
      .get(`${V3}/search/issues`)
      .query(query("acme", "org", 1))
      .reply(403, { message: "API rate limit exceeded for installation ID 7." }, { ...rateLimited, "x-ratelimit-resource": "search" });
    await expect(activeRepos(octokit, organization, SINCE)).rejects.toMatchObject({ status: 403 });
  });
});
