import { z } from "zod";
import { GitHubError } from "../errors.js";
import type { InstallationOctokit } from "../github/octokit.js";

/** What the workspace needs of a repository: where to clone it from and its default branch. */
export interface RepositoryInfo {
  cloneUrl: string;
  defaultBranch: string;
}

const RepositorySchema = z.object({ clone_url: z.string().url(), default_branch: z.string().min(1) });

/**
 * Reads `GET /repos/{owner}/{repo}` (its `clone_url`, so GitHub Enterprise Server and the simulator
 * work like github.com) and remembers it per repository for `ttlMs`: a warm round makes no call.
 */
export function repositoryInfoLoader(ttlMs: number) {
  const cache = new Map<string, { at: number; info: RepositoryInfo }>();
  return async (octokit: () => Promise<InstallationOctokit>, repo: string): Promise<RepositoryInfo> => {
    const key = repo.toLowerCase();
    const cached = cache.get(key);
    if (cached && Date.now() - cached.at < ttlMs) return cached.info;
    const [owner, name] = repo.split("/") as [string, string];
    let data: unknown;
    try {
      ({ data } = await (await octokit()).request("GET /repos/{owner}/{repo}", { owner, repo: name }));
    } catch (error) {
      throw new GitHubError(
        `Could not read the repository ${repo} (GET /repos/${repo}): ${(error as Error).message}. Check that the App is installed on it.`,
        (error as { status?: number }).status,
        { cause: error },
      );
    }
    const parsed = RepositorySchema.safeParse(data);
    if (!parsed.success) throw new GitHubError(`GET /repos/${repo} returned no clone_url or default_branch; is GHE_HOST a GitHub API?`);
    const info = { cloneUrl: parsed.data.clone_url, defaultBranch: parsed.data.default_branch };
    cache.set(key, { at: Date.now(), info });
    return info;
  };
}
