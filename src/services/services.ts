import type { Logger } from "probot";
import type { RunningAgents } from "../agent/runningAgents.js";
import type { RoundGrants } from "../channel/roundGrants.js";
import type { AppConfig } from "../config/appConfig.js";
import type { RepoConfigResult } from "../config/repoConfig.js";
import type { LoopEvents } from "../events.js";
import type { AppIdentity } from "../github/appIdentity.js";
import type { Codeowners } from "../github/codeowners.js";
import type { AgentToken, TokenPermissions } from "../github/agentToken.js";
import type { RepositoryInfo } from "../workspace/repositoryInfo.js";
import type { InstallationOctokit } from "../github/octokit.js";
import type { Queues } from "../queue/queues.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { Stores } from "../store/stores.js";

/** What the loop's handlers and workers share, the Redis aggregates (Stores) among it; built once in src/app/startApp.ts. */
export interface Services extends Stores {
  config: AppConfig;
  queues: Queues;
  log: Logger;
  /** Observers (metrics, Slack mirror) listen here; they never affect the loop. */
  events: LoopEvents;
  /** Agents running in this process, and the channel that stops them from any replica. */
  agents: RunningAgents;
  /** Where agents run (AGENT_SANDBOX), probed once at start. */
  sandbox: Sandbox;
  /** The round channel (src/channel/): the URL agents reach it at, and the open rounds' credentials. */
  channel: { url: string; grants: RoundGrants };
  /** The repository's `.github/escalation.yml` over the server defaults (cached briefly). */
  settings(installationId: number, repo: string): Promise<RepoConfigResult>;
  /** The repository's CODEOWNERS file, if it has one the app can read (cached like the settings). */
  codeowners(installationId: number, repo: string): Promise<Codeowners | undefined>;
  github: {
    identity(): Promise<AppIdentity>;
    installation(installationId: number): Promise<InstallationOctokit>;
    /** The installation's client for GraphQL queries, paced apart from its writes (src/github/graphqlReads.ts). */
    graphqlReads(installationId: number): Promise<InstallationOctokit>;
    /** A fresh token for one round's agent, narrowed to its repository, the configured permissions and `extra` (src/github/agentToken.ts). */
    agentToken(installationId: number, repo: string, extra?: TokenPermissions): Promise<AgentToken>;
    /** A fresh token of exactly `permissions` for one round's git work, held by the app only. */
    appToken(installationId: number, repo: string, permissions: TokenPermissions): Promise<AgentToken>;
    /** Revokes a round's token when the round ends; false (logged) when GitHub could not be told. */
    revokeAgentToken(installationId: number, token: string): Promise<boolean>;
    /** The repository's clone URL and default branch (cached like the settings). */
    repository(installationId: number, repo: string): Promise<RepositoryInfo>;
    /** The App itself (JWT): lists installations. */
    app(): Promise<InstallationOctokit>;
  };
}
