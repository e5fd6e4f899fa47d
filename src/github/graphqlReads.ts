import type { Probot } from "probot";
import type { InstallationOctokit } from "./octokit.js";

/** What Probot's app-level auth hands an installation client's factory (as its own `app.auth(id)` uses it). */
interface FactoryOptions {
  octokit: { constructor: new (options: Record<string, unknown>) => InstallationOctokit };
  octokitOptions: { throttle?: { enabled?: boolean } & Record<string, unknown>; auth?: Record<string, unknown> } & Record<string, unknown>;
  [other: string]: unknown;
}

/**
 * An installation's client for GraphQL queries, built as Probot builds `app.auth(id)` but paced
 * apart from the installation's writes. Octokit's throttling spaces an installation's writes a
 * second apart in each process and counts every GraphQL request as one: a reconciliation's query
 * held back the 🚀 that marks a dispatched round as started (chaos seed 20261210, run 31).
 */
export async function graphqlReadsClient(app: Pick<Probot, "auth">, installationId: number): Promise<InstallationOctokit> {
  const appOctokit = await app.auth();
  const client: unknown = await appOctokit.auth({
    type: "installation",
    installationId,
    factory: ({ octokit, octokitOptions, ...otherOptions }: FactoryOptions) =>
      new octokit.constructor({
        ...octokitOptions,
        throttle: octokitOptions.throttle?.enabled ? { ...octokitOptions.throttle, id: `${installationId}/graphql` } : { enabled: false },
        auth: { ...octokitOptions.auth, otherOptions, installationId },
      }),
  });
  return client as InstallationOctokit;
}
