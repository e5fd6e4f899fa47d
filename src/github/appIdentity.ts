import type { Probot } from "probot";
import { GitHubError } from "../errors.js";

export interface AppIdentity {
  slug: string;
  /** The login GitHub gives comments the App posts with an installation token. */
  botLogin: string;
}

/** Reads the App's slug once (GET /app with the App's JWT) and remembers it for the process. */
export function appIdentityLoader(probot: Probot): () => Promise<AppIdentity> {
  let pending: Promise<AppIdentity> | undefined;
  return () => {
    pending ??= (async () => {
      const octokit = await probot.auth();
      const { data } = await octokit.request("GET /app");
      const slug = (data as { slug?: string } | null)?.slug;
      if (!slug) throw new GitHubError("GET /app returned no slug; check APP_ID and PRIVATE_KEY.");
      return { slug, botLogin: `${slug}[bot]` };
    })().catch((error: unknown) => {
      pending = undefined;
      throw error instanceof GitHubError
        ? error
        : new GitHubError(
            `Could not read the App's identity (GET /app): ${(error as Error).message}. Check APP_ID, PRIVATE_KEY and GHE_HOST.`,
            (error as { status?: number }).status,
            { cause: error },
          );
    });
    return pending;
  };
}
