import type { Logger } from "pino";
import type { Probot } from "probot";
import { GitHubError } from "../errors.js";
import { installationClient, throttledApart } from "./octokit.js";

export interface AgentToken {
  token: string;
  expiresAt: number;
}

export type TokenPermissions = Record<string, "read" | "write">;

/** The higher of each permission in `a` and `b`: a round's needs never narrow what is configured. */
function widest(a: TokenPermissions, b: TokenPermissions): TokenPermissions {
  const out: TokenPermissions = { ...a };
  for (const [name, level] of Object.entries(b)) if (out[name] !== "write") out[name] = level;
  return out;
}

/**
 * Issues installation tokens narrowed to one repository and exactly `permissions`: the agent's
 * GITHUB_TOKEN (the configured, read-only by default, widened by `extra` for this round) and the
 * app's own token for a round's git work, which the agent never holds. Requested explicitly through
 * the App's JWT client so they always go to the configured API host (GHE_HOST), and kept in memory
 * only, never in Redis. Fresh ones for each round: the round revokes them when it ends
 * (agentTokenRevoker), so no two rounds share one.
 */
export function tokenIssuer(probot: Pick<Probot, "auth">, configured: TokenPermissions) {
  const issue = async (installationId: number, repo: string, permissions: TokenPermissions): Promise<AgentToken> => {
    const name = repo.split("/")[1]!;
    try {
      const octokit = await probot.auth();
      const { data } = await octokit.request("POST /app/installations/{installation_id}/access_tokens", {
        installation_id: installationId,
        repositories: [name],
        permissions,
      });
      return { token: data.token, expiresAt: Date.parse(data.expires_at) };
    } catch (error) {
      const status = (error as { status?: number }).status;
      const asked = Object.entries(permissions)
        .map(([name, level]) => `${name}:${level}`)
        .join(",");
      throw new GitHubError(
        `Could not create a round's token for ${repo} (installation ${installationId}) with ${asked}: ${(error as Error).message}. ` +
          "Check that the App is installed on the repository and the installation has granted these permissions (AGENT_TOKEN_PERMISSIONS, and contents:write for the workspace).",
        status,
        { cause: error },
      );
    }
  };
  return {
    agentToken: (installationId: number, repo: string, extra: TokenPermissions = {}) => issue(installationId, repo, widest(configured, extra)),
    appToken: issue,
  };
}

/**
 * Revokes a round's token (`DELETE /installation/token`, authenticated by the token itself) so that
 * nothing the agent left behind can act with it once the round has ended. Sent through a client
 * built as the installation's (its API host, Octokit's retry of 5xx and network errors); a
 * revocation that still fails is logged, never thrown: the round has ended, and the token expires
 * within the hour.
 */
export function agentTokenRevoker(probot: Pick<Probot, "auth">, log: Pick<Logger, "error">) {
  return async (installationId: number, token: string): Promise<boolean> => {
    try {
      // Paced apart from the installation's writes: a revocation never waits behind queued comments.
      const octokit = await installationClient(probot, installationId, ({ octokitOptions }) => ({
        ...octokitOptions,
        throttle: throttledApart(octokitOptions, `${installationId}/token`),
        auth: { token },
      }));
      await octokit.request("DELETE /installation/token");
      return true;
    } catch (error) {
      const status = (error as { status?: number }).status;
      // 401: GitHub no longer knows the token (revoked or expired already): nothing can act with it.
      if (status === 401) return true;
      log.error({ err: error, installationId, status }, "could not revoke the round's token: it stays valid until it expires (at most an hour)");
      return false;
    }
  };
}
