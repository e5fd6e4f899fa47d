import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";

/** What GitHub last said of a user's permission on a repository and membership of a team, kept for a while. */
export class AccessCache {
  readonly #redis: Redis;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = redis;
  }

  /** String with TTL: whether a user is an active member of a team (org/team-slug), as GitHub last said. */
  teamMemberKey(team: string, login: string): string {
    return keyIn(this.prefix, `team:${team.toLowerCase()}:${login.toLowerCase()}`);
  }
  /** String with TTL: a user's cached permission on a repository. */
  permissionKey(repo: string, login: string): string {
    return keyIn(this.prefix, `perm:${repo.toLowerCase()}:${login.toLowerCase()}`);
  }

  async cachedTeamMembership(team: string, login: string): Promise<boolean | undefined> {
    const value = await this.#redis.get(this.teamMemberKey(team, login));
    return value === null ? undefined : value === "1";
  }

  async cacheTeamMembership(team: string, login: string, member: boolean, ttlSeconds: number): Promise<void> {
    await this.#redis.set(this.teamMemberKey(team, login), member ? "1" : "0", "EX", ttlSeconds);
  }

  async cachedPermission(repo: string, login: string): Promise<string | null> {
    return this.#redis.get(this.permissionKey(repo, login));
  }

  async cachePermission(repo: string, login: string, permission: string, ttlSeconds: number): Promise<void> {
    await this.#redis.set(this.permissionKey(repo, login), permission, "EX", ttlSeconds);
  }
}
