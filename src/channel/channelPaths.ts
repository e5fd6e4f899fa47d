/**
 * The one place that knows the round channel's requests (the CLI sends them, channelRoutes.ts
 * serves them): each authenticated by `Authorization: Bearer <ESCALATION_CHANNEL_TOKEN>`.
 *
 * - `POST /ask`, JSON the ask (src/domain.ts AskSchema): posted as the app's bot; 201 `{ url }`.
 * - `POST /comment`, JSON `{ body }`: posted as the agent's words; 201 `{ url }`.
 * - `/git/OWNER/REPO.git/…`: git's smart HTTP push (receive-pack) to the round's branch only.
 *
 * A refusal is JSON `{ error, message }` (git's requests get text): 400 the agent's input, 401 the
 * round is over, 403 not the round's to do, 503 the write budget (Retry-After), 502 GitHub.
 */
export const CHANNEL_PATHS = { ask: "/ask", comment: "/comment" } as const;

/** The host name an agent in the sandbox reaches the channel at, through its egress proxy: `.invalid` is never a real host (RFC 6761). */
export const SANDBOX_CHANNEL_HOST = "escalation.invalid";

/** Where the round's pushes to `repo` go: git's `pushInsteadOf` rewrites the repository's URL to it. */
export function channelGitUrl(channelUrl: string, repo: string): string {
  return `${channelUrl.replace(/\/$/, "")}/git/${repo}.git`;
}

/** A git request's repository and what follows it, or undefined for another path. */
export function parseGitPath(pathname: string): { repo: string; rest: string } | undefined {
  const match = /^\/git\/([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+?)(?:\.git)?(\/.*)$/.exec(pathname);
  return match ? { repo: match[1]!, rest: match[2]! } : undefined;
}

/** The body of a refusal: what the CLI reads back. */
export interface ChannelRefusal {
  error: "invalid" | "round-closed" | "not-allowed" | "deferred" | "github" | "not-found";
  message: string;
}
