import type { Probot } from "probot";
import { installationClient, throttledApart, type InstallationOctokit } from "./octokit.js";

/**
 * An installation's client for GraphQL queries, built as Probot builds `app.auth(id)` but paced
 * apart from the installation's writes. Octokit's throttling spaces an installation's writes a
 * second apart in each process and counts every GraphQL request as one: a reconciliation's query
 * held back the 🚀 that marks a dispatched round as started (chaos seed 20261210, run 31).
 */
export function graphqlReadsClient(app: Pick<Probot, "auth">, installationId: number): Promise<InstallationOctokit> {
  return installationClient(app, installationId, ({ octokit: _octokit, octokitOptions, ...otherOptions }) => ({
    ...octokitOptions,
    throttle: throttledApart(octokitOptions, `${installationId}/graphql`),
    auth: { ...octokitOptions.auth, otherOptions, installationId },
  }));
}
