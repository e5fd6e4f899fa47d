import { Octokit } from "@octokit/rest";
import { GitHubError } from "../errors.js";
import { proxiedFetch, type PROXY_ENV_SHAPE } from "./proxyFetch.js";
import { EnvironmentError } from "./usage.js";

export interface GitHubTarget {
  token: string | undefined;
  /** REST base, e.g. https://api.github.com; a trailing slash is ignored. */
  apiUrl: string;
  /** The proxy variables of the command's environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  proxy: { [K in keyof typeof PROXY_ENV_SHAPE]?: string };
}

/**
 * Posts a comment on an issue as whoever owns the token (the agent's installation token for
 * `escalate ask`, the operator's own token for `escalate answer`) and returns its URL.
 * A missing token is an EnvironmentError (exit 2); GitHub refusing or unreachable is a GitHubError (exit 1).
 */
export async function postIssueComment(target: GitHubTarget, repo: string, issue: number, body: string, missingToken: string): Promise<string> {
  if (!target.token) throw new EnvironmentError(missingToken, ["GITHUB_TOKEN"]);
  const [owner, name] = repo.split("/") as [string, string];
  const fetch = await proxiedFetch(target.proxy);
  const octokit = new Octokit({
    auth: target.token,
    baseUrl: target.apiUrl.replace(/\/$/, ""),
    log: { debug() {}, info() {}, warn() {}, error() {} },
    request: fetch ? { fetch } : {},
  });
  try {
    const { data } = await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner,
      repo: name,
      issue_number: issue,
      body,
    });
    return data.html_url;
  } catch (error) {
    const response = (error as { response?: { status?: number; data?: { message?: string } } }).response;
    // Without a response (refused, DNS, reset) @octokit/request reports a synthetic 500: GitHub never said that.
    const status = response?.status;
    const message = response?.data?.message ?? innermostMessage(error);
    const what = status
      ? `GitHub refused the comment on ${repo}#${issue} (HTTP ${status})`
      : `GitHub could not be reached to post the comment on ${repo}#${issue}`;
    throw new GitHubError(`${what}: ${message}`, status, { cause: error });
  }
}

/** The message of the deepest `cause`: fetch wraps what went wrong ("Proxy response (403) !== 200 …") in "fetch failed". */
function innermostMessage(error: unknown): string {
  let current = error as { message?: string; cause?: unknown };
  while (current.cause && typeof current.cause === "object") current = current.cause;
  return current.message ?? String(error);
}
