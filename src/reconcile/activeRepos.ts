import { z } from "zod";
import type { InstallationOctokit } from "../github/octokit.js";

/** GitHub's search returns at most this many results of a query; past it the answer is incomplete. */
const SEARCH_CAP = 1000;
const PER_PAGE = 100;

/** An installation as `GET /app/installations` lists it: whose it is, and whether it holds all of its repositories. */
export const InstallationSchema = z.object({
  id: z.number().int().positive(),
  account: z.object({ login: z.string(), type: z.string().optional() }).nullable().optional(),
  repository_selection: z.enum(["all", "selected"]).optional(),
});
export type InstallationListing = z.infer<typeof InstallationSchema>;

const SearchPage = z.object({
  total_count: z.number().int().nonnegative(),
  incomplete_results: z.boolean(),
  items: z.array(z.object({ repository_url: z.string() })),
});

/**
 * The repositories of an installation's account with an issue or pull request updated at or after
 * `since` (a comment, an edit, a label, a close all update it), in one search for all of them:
 * GitHub's issue search reaches every repository the installation's token may read, so an idle
 * repository costs no request. Full names as GitHub writes them; undefined when the search cannot say (no
 * account, or more results than GitHub returns): the caller then reads every repository, as on an error.
 * The search has its own rate limit (30 a minute), apart from the installation's 5,000 an hour.
 */
export async function activeRepos(octokit: InstallationOctokit, installation: InstallationListing, since: string): Promise<Set<string> | undefined> {
  const account = installation.account;
  if (!account) return undefined;
  const q = `${account.type === "Organization" ? "org" : "user"}:${account.login} updated:>=${since}`;
  const found = new Set<string>();
  for (let page = 1; ; page++) {
    const response = await octokit.request("GET /search/issues", { q, sort: "updated", order: "desc", per_page: PER_PAGE, page });
    const parsed = SearchPage.safeParse(response.data);
    if (!parsed.success || parsed.data.incomplete_results || parsed.data.total_count > SEARCH_CAP) return undefined;
    for (const item of parsed.data.items) found.add(repoOfUrl(item.repository_url));
    if (parsed.data.items.length < PER_PAGE || page * PER_PAGE >= parsed.data.total_count) return found;
  }
}

/** "…/repos/acme/widgets" → "acme/widgets". */
function repoOfUrl(url: string): string {
  return url.split("/").slice(-2).join("/");
}
