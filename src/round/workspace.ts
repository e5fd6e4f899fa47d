import type { PullRequestMode } from "../config/repoConfig.js";
import { GitHubError, WorkspaceError } from "../errors.js";
import type { TokenPermissions } from "../github/agentToken.js";
import type { Services } from "../services/services.js";
import { prepareWorkspace, type PreparedWorkspace } from "../workspace/prepareWorkspace.js";
import { pullRequestBranch } from "../workspace/pullRequestBranch.js";
import type { SavedWork } from "../workspace/saveWork.js";

/** The app's own token for the checkout: it clones, and pushes what the agent left (the agent's pushes go through it too). */
export const APP_CHECKOUT_PERMISSIONS: TokenPermissions = { contents: "write" };

/**
 * What the workspace adds to the agent's token: reading the repository's code, and opening the pull
 * request itself where the repository leaves that to the agent. Never `contents: write`: the agent
 * pushes through the app, to its branch only (src/channel/).
 */
export function agentWorkspacePermissions(pullRequest: PullRequestMode): TokenPermissions {
  return pullRequest === "agent" ? { contents: "read", pull_requests: "write" } : { contents: "read" };
}

export type RoundWorkspace =
  /**
   * `token`: the app's, which clones and pushes; `agentToken`: the agent's, which reads.
   * `ownPullRequest`: the issue is a pull request and the checkout is on its head branch.
   */
  | { kind: "ready"; prepared: PreparedWorkspace; token: string; agentToken: string; cloneUrl: string; ownPullRequest: boolean }
  /** GitHub refused the token or the clone: a permission the installation lacks. `comment` says which and where to grant it. */
  | { kind: "refused"; comment: string; problem: string };

/**
 * The round's checkout, prepared with the app's own token for the round (narrowed to the repository,
 * `contents: write`), and the agent's read-only token, both minted at once. Failures other than a
 * refusal are thrown (a network blip): the round is retried like an agent that could not start.
 */
export async function openRoundWorkspace(
  services: Services,
  input: { installationId: number; repo: string; issue: number; round: number; branchTemplate: string; pullRequest: PullRequestMode },
): Promise<RoundWorkspace> {
  const { installationId, repo, issue, round } = input;
  const appToken = services.github.appToken(installationId, repo, APP_CHECKOUT_PERMISSIONS);
  const agentToken = services.github.agentToken(installationId, repo, agentWorkspacePermissions(input.pullRequest));
  try {
    const [{ token }, agent, info, { botLogin }, pull] = await Promise.all([
      appToken,
      agentToken,
      services.github.repository(installationId, repo),
      services.github.identity(),
      pullRequestBranch(() => services.github.installation(installationId), repo, issue),
    ]);
    const prepared = await prepareWorkspace({
      root: services.config.workspace.root,
      repo,
      issue,
      round,
      cloneUrl: info.cloneUrl,
      base: pull?.base ?? info.defaultBranch,
      branch: pull?.head ?? input.branchTemplate.replaceAll("{issue}", String(issue)),
      token,
      identity: { name: botLogin, email: `${botLogin}@users.noreply.github.com` },
      limits: { maxBytes: services.config.workspace.maxBytes, maxFiles: services.config.workspace.maxFiles },
    });
    return { kind: "ready", prepared, token, agentToken: agent.token, cloneUrl: info.cloneUrl, ownPullRequest: pull !== undefined };
  } catch (error) {
    // No round holds them now: whichever was minted is revoked, not left valid for its hour.
    for (const minted of await Promise.allSettled([appToken, agentToken])) {
      if (minted.status === "fulfilled") await services.github.revokeAgentToken(installationId, minted.value.token);
    }
    const refusedToken = error instanceof GitHubError && (error.status === 403 || error.status === 422);
    if (refusedToken || (error instanceof WorkspaceError && error.reason === "refused")) {
      return { kind: "refused", comment: refusalComment(repo), problem: error.message };
    }
    throw error;
  }
}

/** One ⚠️ comment naming the permission and where to grant it. */
function refusalComment(repo: string): string {
  return [
    `⚠️ The agent's checkout of ${repo} could not be prepared: GitHub refused the App's token. The checkout needs the permission **Contents: write**.`,
    "",
    "An owner of the repository's account grants it in the App's installation (Settings → GitHub Apps → the App → Configure; accept the new permissions), " +
      "or the checkout is turned off with `workspace:` `enabled: false` in `.github/escalation.yml`. Then comment `/retry`.",
  ].join("\n");
}

/** The end of the round's status line: where the work went. */
export function savedLine(saved: SavedWork): string {
  if (saved.divertedTo) return ` · the branch had moved meanwhile, so the work was pushed to \`${saved.divertedTo}\` instead`;
  return saved.pushedTo ? ` · work pushed to \`${saved.pushedTo}\`` : "";
}
