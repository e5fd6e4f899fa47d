import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { permissionOf, type PermissionCache } from "../../../src/github/permissions.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";

const PATH = `${V3}/repos/acme/widgets/collaborators/alice/permission`;

/** An in-memory cache, recording what was cached with which TTL. */
function memoryCache(): PermissionCache & { cached: Map<string, [string, number]> } {
  const cached = new Map<string, [string, number]>();
  return {
    cached,
    cachedPermission: async (repo, login) => cached.get(`${repo}/${login}`)?.[0] ?? null,
    cachePermission: async (repo, login, permission, ttl) => void cached.set(`${repo}/${login}`, [permission, ttl]),
  };
}

describe("permissionOf, against GitHub's collaborator permission API", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  it("asks with the installation's token, prefers role_name (it tells maintain and triage apart) and caches it", async () => {
    const { octokit } = github.installation();
    github.scope.get(PATH).matchHeader("authorization", "token ghs_installation4242").reply(200, { permission: "write", role_name: "maintain" });
    const cache = memoryCache();
    expect(await permissionOf(octokit, cache, "acme/widgets", "alice", 60)).toBe("maintain");
    expect(cache.cached.get("acme/widgets/alice")).toEqual(["maintain", 60]);
  });

  it("falls back to `permission` for a custom role", async () => {
    const { octokit } = github.installation();
    github.scope.get(PATH).reply(200, { permission: "write", role_name: "release-manager" });
    expect(await permissionOf(octokit, memoryCache(), "acme/widgets", "alice", 60)).toBe("write");
  });

  it("reads a 404 (not a collaborator, or no such user) as none, and caches that too", async () => {
    const { octokit } = github.installation();
    github.scope.get(PATH).reply(404, { message: "Not Found" });
    const cache = memoryCache();
    expect(await permissionOf(octokit, cache, "acme/widgets", "alice", 60)).toBe("none");
    expect(cache.cached.get("acme/widgets/alice")).toEqual(["none", 60]);
  });

  it("a cache hit asks GitHub nothing and builds no installation Octokit", async () => {
    const { octokit, built } = github.installation();
    const cache = memoryCache();
    await cache.cachePermission("acme/widgets", "alice", "triage", 60);
    expect(await permissionOf(octokit, cache, "acme/widgets", "alice", 60)).toBe("triage");
    expect(built.count).toBe(0);
  });

  it.each([
    ["a rate limit (403)", 403, { message: "API rate limit exceeded for installation ID 4242." }, rateLimited],
    ["a server error (502)", 502, { message: "Server Error" }, {}],
  ])("throws on %s, asked once, and caches nothing: a lost answer is not a refusal", async (_name, status, body, headers) => {
    const { octokit } = github.installation();
    github.scope.get(PATH).reply(status, body, headers);
    const cache = memoryCache();
    await expect(permissionOf(octokit, cache, "acme/widgets", "alice", 60)).rejects.toMatchObject({ status });
    expect(cache.cached.size).toBe(0);
  });
});
