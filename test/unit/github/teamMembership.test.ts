import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AccessCache } from "../../../src/store/accessCache.js";
import { isTeamMember } from "../../../src/github/teamMembership.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";

const PATH = `${V3}/orgs/acme/teams/reviewers/memberships/alice`;

/** The store's team-membership cache, in memory. */
function memoryCache() {
  const cached = new Map<string, [boolean, number]>();
  const store: Pick<AccessCache, "cachedTeamMembership" | "cacheTeamMembership"> = {
    cachedTeamMembership: async (team, login) => cached.get(`${team}/${login}`)?.[0],
    cacheTeamMembership: async (team, login, member, ttl) => void cached.set(`${team}/${login}`, [member, ttl]),
  };
  return { cached, store };
}

describe("isTeamMember, against GitHub's team membership API", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  it.each([
    ["an active member", "active", true],
    ["an invitation not yet accepted", "pending", false],
  ])("%s: %s, cached", async (_name, state, member) => {
    const { octokit } = github.installation();
    github.scope
      .get(PATH)
      .matchHeader("authorization", "token ghs_installation4242")
      .reply(200, { state, role: "member", url: `https://github.example${PATH}` });
    const { cached, store } = memoryCache();
    expect(await isTeamMember(octokit, store, "acme/reviewers", "alice", 300)).toBe(member);
    expect(cached.get("acme/reviewers/alice")).toEqual([member, 300]);
  });

  it("a team the app cannot see (404: no such team, or no members: read) has no members, and that is cached", async () => {
    const { octokit } = github.installation();
    github.scope.get(PATH).reply(404, { message: "Not Found" });
    const { cached, store } = memoryCache();
    expect(await isTeamMember(octokit, store, "acme/reviewers", "alice", 300)).toBe(false);
    expect(cached.get("acme/reviewers/alice")).toEqual([false, 300]);
  });

  it("a cache hit asks GitHub nothing and builds no installation Octokit", async () => {
    const { octokit, built } = github.installation();
    const { store } = memoryCache();
    await store.cacheTeamMembership("acme/reviewers", "alice", true, 300);
    expect(await isTeamMember(octokit, store, "acme/reviewers", "alice", 300)).toBe(true);
    expect(built.count).toBe(0);
  });

  it("throws on a rate limit (403) and caches nothing: a lost answer is not a refusal", async () => {
    const { octokit } = github.installation();
    github.scope.get(PATH).reply(403, { message: "API rate limit exceeded for installation ID 4242." }, rateLimited);
    const { cached, store } = memoryCache();
    await expect(isTeamMember(octokit, store, "acme/reviewers", "alice", 300)).rejects.toMatchObject({ status: 403 });
    expect(cached.size).toBe(0);
  });
});
