import { REPO_CONFIG_PATH, resolveRepoSettings, type RepoConfigResult, type RepoSettings } from "../config/repoConfig.js";
import type { InstallationOctokit } from "./octokit.js";

interface Cached {
  at: number;
  result: RepoConfigResult;
}

/**
 * Reads `.github/escalation.yml` through Probot's config loader (octokit.config.get, what
 * context.config uses), caches it per repository for a short while, and falls back to the server's
 * defaults when it is missing or invalid. GitHub's own failures are thrown. The installation's Octokit
 * is built only on a cache miss.
 */
export class RepoSettingsLoader {
  readonly #cache = new Map<string, Cached>();

  constructor(
    private readonly defaults: RepoSettings,
    private readonly ttlMs: number,
  ) {}

  async load(octokit: () => Promise<InstallationOctokit>, repo: string): Promise<RepoConfigResult> {
    const key = repo.toLowerCase();
    const cached = this.#cache.get(key);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.result;
    const [owner, name] = repo.split("/") as [string, string];
    let result: RepoConfigResult;
    try {
      const { files } = await (await octokit()).config.get({ owner, repo: name, path: REPO_CONFIG_PATH });
      const own = files.find((f) => f.repo.toLowerCase() === name.toLowerCase() && f.config !== null);
      result = resolveRepoSettings(own?.config ?? files.find((f) => f.config !== null)?.config, this.defaults);
    } catch (error) {
      // GitHub's failure to answer (a rate limit, a 5xx) is thrown: it says nothing of the file, and is not cached.
      if ((error as { status?: number }).status !== undefined) throw error;
      // A file that is not valid YAML: say so, and use the defaults.
      result = { settings: this.defaults, problem: `the file is not valid YAML: ${(error as Error).message.split("\n")[0]}` };
    }
    this.#cache.set(key, { at: Date.now(), result });
    return result;
  }
}
