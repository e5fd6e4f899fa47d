import type { InstallationOctokit } from "./octokit.js";
import { CODEOWNERS_PATHS, parseCodeowners, type Codeowners } from "./codeowners.js";
import { limitSignalOf } from "./writeBudget.js";

interface Cached {
  at: number;
  codeowners: Codeowners | undefined;
}

/**
 * Reads a repository's CODEOWNERS where GitHub looks for it (the first of CODEOWNERS_PATHS that
 * exists, on the default branch) and caches it per repository like `.github/escalation.yml`
 * (REPO_CONFIG_CACHE_TTL). Undefined when there is none, or the app may not read it (404/403 other
 * than a rate limit): who may answer then falls back to the permission rule.
 */
export class CodeownersLoader {
  readonly #cache = new Map<string, Cached>();

  constructor(private readonly ttlMs: number) {}

  async load(octokit: () => Promise<InstallationOctokit>, repo: string): Promise<Codeowners | undefined> {
    const key = repo.toLowerCase();
    const cached = this.#cache.get(key);
    if (cached && Date.now() - cached.at < this.ttlMs) return cached.codeowners;
    const [owner, name] = repo.split("/") as [string, string];
    let codeowners: Codeowners | undefined;
    const client = await octokit();
    for (const path of CODEOWNERS_PATHS) {
      const text = await readFile(client, owner, name, path);
      if (text !== undefined) {
        codeowners = parseCodeowners(text, path);
        break;
      }
    }
    this.#cache.set(key, { at: Date.now(), codeowners });
    return codeowners;
  }
}

async function readFile(octokit: InstallationOctokit, owner: string, repo: string, path: string): Promise<string | undefined> {
  try {
    const { data } = await octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
      owner,
      repo,
      path,
      headers: { accept: "application/vnd.github.raw" },
    });
    return typeof data === "string" ? data : undefined;
  } catch (error) {
    const status = (error as { status?: number }).status;
    // A 403 is no permission to read the file, unless it is GitHub's rate limit: that would be cached as no CODEOWNERS.
    if (status === 404 || (status === 403 && !limitSignalOf(error))) return undefined;
    throw error;
  }
}
