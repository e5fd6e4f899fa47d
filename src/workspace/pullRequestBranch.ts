import { z } from "zod";
import type { InstallationOctokit } from "../github/octokit.js";
import { limitSignalOf } from "../github/writeBudget.js";

/** A pull request's own branch and base, when the agent works on that pull request's conversation. */
export interface PullRequestBranch {
  head: string;
  base: string;
}

const PullSchema = z.object({
  head: z.object({ ref: z.string().min(1), repo: z.object({ full_name: z.string() }).nullable() }),
  base: z.object({ ref: z.string().min(1) }),
});

/** A number's answer never changes (an issue stays an issue, a pull request keeps its head): asked once per process. */
const known = new Map<string, PullRequestBranch | null>();

/**
 * For a pull request's own conversation the branch is the pull request's head branch (and the base
 * its base), when that branch is in the repository itself: a fork's branch cannot be pushed with
 * the repository's token, so the issue's own branch is used then. Undefined for an issue.
 */
export async function pullRequestBranch(octokit: () => Promise<InstallationOctokit>, repo: string, number: number): Promise<PullRequestBranch | undefined> {
  const key = `${repo.toLowerCase()}#${number}`;
  if (!known.has(key)) {
    const [owner, name] = repo.split("/") as [string, string];
    try {
      const { data } = await (await octokit()).request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner, repo: name, pull_number: number });
      const pull = PullSchema.parse(data);
      known.set(key, pull.head.repo?.full_name.toLowerCase() === repo.toLowerCase() ? { head: pull.head.ref, base: pull.base.ref } : null);
    } catch (error) {
      const status = (error as { status?: number }).status;
      // Without Pull requests: read the app cannot tell; the issue's own branch is used, and asked again next time.
      // A rate limit is thrown instead, as the round's other reads would: the round would push to the wrong branch.
      if (status === 403 && !limitSignalOf(error)) return undefined;
      if (status !== 404) throw error;
      known.set(key, null);
    }
  }
  return known.get(key) ?? undefined;
}
