import type { Probot, ProbotOctokit } from "probot";

/** An installation's (or the App's) Octokit, as Probot builds it: what every GitHub read and write takes. */
export type InstallationOctokit = InstanceType<typeof ProbotOctokit>;

/** What Probot's app-level auth hands an installation client's factory (as its own `app.auth(id)` uses it). */
export interface FactoryOptions {
  octokit: { constructor: new (options: Record<string, unknown>) => InstallationOctokit };
  octokitOptions: { throttle?: { enabled?: boolean } & Record<string, unknown>; auth?: Record<string, unknown> } & Record<string, unknown>;
  [other: string]: unknown;
}

/**
 * Octokit's throttling of `options` in a group of its own: requests paced apart from the
 * installation's writes, which Octokit spaces a second apart in each process.
 */
export function throttledApart(options: FactoryOptions["octokitOptions"], group: string): Record<string, unknown> {
  return options.throttle?.enabled ? { ...options.throttle, id: group } : { enabled: false };
}

/**
 * A client built as Probot builds `app.auth(installationId)` (its API host, retry and throttling),
 * with the options `adjust` returns: another throttling group, or another credential.
 */
export async function installationClient(
  app: Pick<Probot, "auth">,
  installationId: number,
  adjust: (options: FactoryOptions) => Record<string, unknown>,
): Promise<InstallationOctokit> {
  const appOctokit = await app.auth();
  const client: unknown = await appOctokit.auth({
    type: "installation",
    installationId,
    factory: (options: FactoryOptions) => new options.octokit.constructor(adjust(options)),
  });
  return client as InstallationOctokit;
}
