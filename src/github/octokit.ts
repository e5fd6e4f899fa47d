import type { ProbotOctokit } from "probot";

/** An installation's (or the App's) Octokit, as Probot builds it: what every GitHub read and write takes. */
export type InstallationOctokit = InstanceType<typeof ProbotOctokit>;
