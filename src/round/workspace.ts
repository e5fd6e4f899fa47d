import type { PullRequestMode } from "../config/repoConfig.js";
import { GitHubError, WorkspaceError } from "../errors.js";
import type { TokenPermissions } from "../github/agentToken.js";
import type { Services } from "../services/services.js";
import { gitAuthEnv } from "../workspace/gitCredentials.js";
import { prepareWorkspace, type PreparedWorkspace } from "../workspace/prepareWorkspace.js";
import { pullRequestBranch } from "../workspace/pullRequestBranch.js";
import type { SavedWork } from "../workspace/saveWork.js";

/**
 * What the workspace needs of the token: the agent's token reads and pushes the repository's code,
 * and opens the pull request itself where the repository leaves that to the agent.
 */
export function workspacePermissions(pullRequest: PullRequestMode): TokenPermissions {
  return pullRequest === "agent" ? { contents: "write", pull_requests: "write" } : { contents: "write" };
}

export type RoundWorkspace =
  /** `ownPullRequest`: the issue is a pull request and the checkout is on its head branch. */
  | { kind: "ready"; prepared: PreparedWorkspace; token: string; gitAuth: Record<string, string>; ownPullRequest: boolean }
  /** GitHub refused the token or the clone: a permission the installation lacks. `comment` says which and where to grant it. */
  | { kind: "refused"; comment: string; problem: string };

/**
 * The round's checkout, prepared with the agent's own token (narrowed to the repository, with
 * `contents: write`); the same token and git authentication go to the agent. Failures other than a
 * refusal are thrown (a network blip): the round is retried like an agent that could not start.
 */
export async function openRoundWorkspace(
  services: Services,
  input: { installationId: number; repo: string; issue: number; round: number; branchTemplate: string; pullRequest: PullRequestMode },
): Promise<RoundWorkspace> {
  const { installationId, repo, issue, round } = input;
  try {
    const [{ token }, info, { botLogin }, pull] = await Promise.all([
      services.github.agentToken(installationId, repo, workspacePermissions(input.pullRequest)),
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
    return { kind: "ready", prepared, token, gitAuth: gitAuthEnv(info.cloneUrl, token), ownPullRequest: pull !== undefined };
  } catch (error) {
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
