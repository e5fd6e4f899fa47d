import { z } from "zod";
import { GitHubError } from "../errors.js";
import { parseAskComment } from "../protocol/ask.js";
import type { InstallationOctokit } from "../github/octokit.js";
import { git } from "./git.js";

export interface PullRequestInput {
  octokit: InstallationOctokit;
  repo: string;
  issue: number;
  issueTitle: string;
  branch: string;
  base: string;
  checkout: string;
}

/** What happened to the issue's pull request; `url` to show on the status line. */
export type Delivery =
  { kind: "opened" | "updated"; number: number; url: string } | { kind: "closed"; number: number; url: string } | { kind: "nothing"; why: string };

const PullSchema = z.object({ number: z.number().int(), html_url: z.string(), state: z.string() });

/**
 * The issue's one pull request from its branch: opened the first time a finished round leaves the
 * branch ahead of the base, found again (open: the push already updated it) every later time.
 * However often a job or webhook repeats, there is one: the lookup by head comes first, and GitHub
 * itself refuses a second open pull request for the same head and base (422), after which the
 * lookup finds the first. A pull request a human closed is not opened again.
 */
export async function deliverPullRequest(input: PullRequestInput): Promise<Delivery> {
  const ahead = Number(await git(["rev-list", "--count", `refs/remotes/origin/${input.base}..HEAD`], { cwd: input.checkout }));
  if (ahead === 0) return { kind: "nothing", why: `the branch has no commits beyond ${input.base}` };
  const existing = await findPull(input);
  if (existing) return existing;
  const [owner, name] = input.repo.split("/") as [string, string];
  try {
    const { data } = await input.octokit.request("POST /repos/{owner}/{repo}/pulls", {
      owner,
      repo: name,
      title: input.issueTitle || `Work on #${input.issue}`,
      head: input.branch,
      base: input.base,
      body: `Closes #${input.issue}\n\nThe agent's work on #${input.issue}, from the branch \`${input.branch}\`.`,
    });
    const pull = PullSchema.parse(data);
    return { kind: "opened", number: pull.number, url: pull.html_url };
  } catch (error) {
    const status = (error as { status?: number }).status;
    // Opened meanwhile by a repeat of this round's job: that one is the issue's pull request.
    const raced = status === 422 ? await findPull(input) : undefined;
    if (raced) return raced;
    const hint =
      status === 403
        ? " The App needs the permission Pull requests: write (the installation's settings on GitHub), or set `workspace:` `pull_request: false`."
        : "";
    throw new GitHubError(`Could not open a pull request from ${input.branch}: ${(error as Error).message}.${hint}`, status, { cause: error });
  }
}

async function findPull(input: PullRequestInput): Promise<Delivery | undefined> {
  const [owner, name] = input.repo.split("/") as [string, string];
  const { data } = await input.octokit.request("GET /repos/{owner}/{repo}/pulls", {
    owner,
    repo: name,
    head: `${owner}:${input.branch}`,
    base: input.base,
    state: "all",
    per_page: 100,
  });
  const pulls = z.array(PullSchema).parse(data);
  const pull = pulls.find((p) => p.state === "open") ?? pulls[0];
  if (!pull) return undefined;
  return { kind: pull.state === "open" ? "updated" : "closed", number: pull.number, url: pull.html_url };
}

/**
 * Whether an agent (the App's bot, or a login in AGENT_LOGINS) asked on the issue since `sinceMs`,
 * other than the questions in `known` (comment ids; GitHub's whole-second timestamps cannot tell a
 * question asked just before the round from one asked in it): read from GitHub, as the question's
 * webhook may still be on its way when the agent has exited.
 */
export async function askedSince(
  octokit: InstallationOctokit,
  repo: string,
  issue: number,
  sinceMs: number,
  known: ReadonlySet<string>,
  isAgent: (login: string) => boolean,
): Promise<boolean> {
  const [owner, name] = repo.split("/") as [string, string];
  // GitHub's timestamps have whole seconds.
  const since = new Date(Math.floor(sinceMs / 1000) * 1000 - 1000).toISOString();
  const comments = await octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner,
    repo: name,
    issue_number: issue,
    since,
    per_page: 100,
  });
  return comments.some((c) => !known.has(String(c.id)) && isAgent(c.user?.login ?? "") && parseAskComment(c.body ?? "") !== undefined);
}

/** The end of the round's status line for a delivery. */
export function deliveryLine(delivery: Delivery): string {
  switch (delivery.kind) {
    case "opened":
      return ` · pull request #${delivery.number} opened (${delivery.url})`;
    case "updated":
      return ` · pull request #${delivery.number} updated (${delivery.url})`;
    case "closed":
      return ` · pull request #${delivery.number} was closed, so none is opened again (${delivery.url})`;
    case "nothing":
      return "";
  }
}
