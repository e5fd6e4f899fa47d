import { Octokit } from "@octokit/rest";
import { GitHubError } from "../errors.js";
import { UsageError } from "./usage.js";

export interface GitHubTarget {
  token: string | undefined;
  /** REST base, e.g. https://api.github.com; a trailing slash is ignored. */
  apiUrl: string;
}

/**
 * Posts a comment on an issue as whoever owns the token (the agent's installation token for
 * `escalate ask`, the operator's own token for `escalate answer`) and returns its URL.
 * A missing token is a UsageError (exit 2); GitHub refusing or unreachable is a GitHubError (exit 1).
 */
export async function postIssueComment(target: GitHubTarget, repo: string, issue: number, body: string, missingToken: string): Promise<string> {
  if (!target.token) throw new UsageError(missingToken);
  const [owner, name] = repo.split("/") as [string, string];
  const octokit = new Octokit({ auth: target.token, baseUrl: target.apiUrl.replace(/\/$/, ""), log: { debug() {}, info() {}, warn() {}, error() {} } });
  try {
    const { data } = await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner,
      repo: name,
      issue_number: issue,
      body,
    });
    return data.html_url;
  } catch (error) {
    const status = (error as { status?: number }).status;
    const message = (error as { response?: { data?: { message?: string } } }).response?.data?.message ?? (error as Error).message;
    throw new GitHubError(`GitHub refused the comment on ${repo}#${issue}${status ? ` (HTTP ${status})` : ""}: ${message}`, status, { cause: error });
  }
}
