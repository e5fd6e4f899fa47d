import type { Probot } from "probot";
import { GitHubError } from "../errors.js";

export interface AgentToken {
  token: string;
  expiresAt: number;
}

/** Reuse a token only while it has this much life left, so an agent never starts with a dying one. */
const MIN_REMAINING_MS = 20 * 60 * 1000;

export type TokenPermissions = Record<string, "read" | "write">;

/**
 * Issues the agent's GITHUB_TOKEN: an installation token narrowed to one repository and the
 * configured permissions, plus `extra` for this spawn (`contents: write` where the workspace is on).
 * Requested explicitly through the App's JWT client so it always goes to the configured API host
 * (GHE_HOST), and kept in memory only, never in Redis.
 */
export function agentTokenIssuer(probot: Probot, configured: TokenPermissions) {
  const cache = new Map<string, AgentToken>();
  return async (installationId: number, repo: string, extra: TokenPermissions = {}): Promise<AgentToken> => {
    const permissions = { ...configured, ...extra };
    const key = `${installationId}/${repo.toLowerCase()}/${JSON.stringify(Object.entries(permissions).sort())}`;
    const cached = cache.get(key);
    if (cached && cached.expiresAt - Date.now() > MIN_REMAINING_MS) return cached;
    const name = repo.split("/")[1]!;
    try {
      const octokit = await probot.auth();
      const { data } = await octokit.request("POST /app/installations/{installation_id}/access_tokens", {
        installation_id: installationId,
        repositories: [name],
        permissions,
      });
      const token = { token: data.token, expiresAt: Date.parse(data.expires_at) };
      cache.set(key, token);
      return token;
    } catch (error) {
      const status = (error as { status?: number }).status;
      const asked = Object.entries(permissions)
        .map(([name, level]) => `${name}:${level}`)
        .join(",");
      throw new GitHubError(
        `Could not create the agent's token for ${repo} (installation ${installationId}) with ${asked}: ${(error as Error).message}. ` +
          "Check that the App is installed on the repository and the installation has granted these permissions (AGENT_TOKEN_PERMISSIONS, and contents:write for the workspace).",
        status,
        { cause: error },
      );
    }
  };
}
