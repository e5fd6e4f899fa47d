import type { AccessCache } from "../store/accessCache.js";
import type { InstallationOctokit } from "./octokit.js";

/**
 * Whether `login` is an active member of `team` (org/team-slug), cached in Redis for `ttlSeconds`
 * (like permissions) so a burst of replies costs one GitHub read per person and team. A team the
 * app cannot see (404: no such team, or no `members: read` permission) has no members. The Octokit
 * is built only on a cache miss.
 */
export async function isTeamMember(
  octokit: () => Promise<InstallationOctokit>,
  cache: Pick<AccessCache, "cachedTeamMembership" | "cacheTeamMembership">,
  team: string,
  login: string,
  ttlSeconds: number,
): Promise<boolean> {
  const cached = await cache.cachedTeamMembership(team, login);
  if (cached !== undefined) return cached;
  const [org, slug] = team.split("/") as [string, string];
  let member = false;
  try {
    const { data } = await (await octokit()).request("GET /orgs/{org}/teams/{team_slug}/memberships/{username}", { org, team_slug: slug, username: login });
    member = data.state === "active";
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
  }
  await cache.cacheTeamMembership(team, login, member, ttlSeconds);
  return member;
}
