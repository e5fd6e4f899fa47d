import type { ProbotOctokit } from "probot";
import { PERMISSION_LEVELS, type PermissionLevel } from "../domain.js";

export function meetsMinimum(level: PermissionLevel, minimum: PermissionLevel): boolean {
  return PERMISSION_LEVELS.indexOf(level) >= PERMISSION_LEVELS.indexOf(minimum);
}

function asLevel(value: unknown): PermissionLevel | undefined {
  return PERMISSION_LEVELS.find((level) => level === value);
}

/** Where permissions are cached (AccessCache, src/store/accessCache.ts). */
export interface PermissionCache {
  cachedPermission(repo: string, login: string): Promise<string | null>;
  cachePermission(repo: string, login: string, permission: string, ttlSeconds: number): Promise<void>;
}

/**
 * A user's permission on a repository, cached in Redis for `ttlSeconds` so a burst of replies
 * costs one GitHub read. role_name is preferred: it tells maintain and triage apart. The
 * installation's Octokit is built only on a cache miss: building one costs more than the look-up.
 */
export async function permissionOf(
  octokit: () => Promise<InstanceType<typeof ProbotOctokit>>,
  store: PermissionCache,
  repo: string,
  login: string,
  ttlSeconds: number,
): Promise<PermissionLevel> {
  const cached = asLevel(await store.cachedPermission(repo, login));
  if (cached) return cached;
  const [owner, name] = repo.split("/") as [string, string];
  let level: PermissionLevel = "none";
  try {
    const { data } = await (
      await octokit()
    ).request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
      owner,
      repo: name,
      username: login,
    });
    level = asLevel(data.role_name) ?? asLevel(data.permission) ?? "none";
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
  }
  await store.cachePermission(repo, login, level, ttlSeconds);
  return level;
}
