import type { Sandbox } from "../sandbox/sandbox.js";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { controlChannel, RunningAgents } from "../agent/runningAgents.js";
import type { AppConfig } from "../config/appConfig.js";
import { serverDefaults } from "../config/repoConfig.js";
import { LoopEvents } from "../events.js";
import { tokenIssuer, agentTokenRevoker } from "../github/agentToken.js";
import { repositoryInfoLoader } from "../workspace/repositoryInfo.js";
import { appIdentityLoader } from "../github/appIdentity.js";
import { graphqlReadsClient } from "../github/graphqlReads.js";
import { CodeownersLoader } from "../github/codeownersLoader.js";
import { RepoSettingsLoader } from "../github/repoSettings.js";
import type { Queues } from "../queue/queues.js";
import type { Services } from "../services/services.js";
import { openStores } from "../store/stores.js";

export interface OctokitSwitches {
  throttle: boolean;
  retry: boolean;
}

/**
 * Probot's Octokit with retry and throttling on (production) or off (tests: immediate, countable calls).
 * The switches are merged into every instance's options: Probot passes its own `throttle` object
 * (the rate-limit handlers) to each instance, which replaced a plain `{ throttle: { enabled } }`
 * default wholesale, so throttling stayed on whatever the switch said.
 */
export function probotClass(config: AppConfig, log: Logger, switches?: OctokitSwitches): typeof Probot {
  type Options = { throttle?: Record<string, unknown>; retry?: Record<string, unknown> } & Record<string, unknown>;
  const Octokit = ProbotOctokit.defaults((options: Options = {}) => ({
    ...options,
    throttle: { ...options.throttle, enabled: switches?.throttle ?? true, onSecondaryRateLimit: secondaryLimitHandler(log) },
    // 429 is a rate limit, handled above (and, for writes, by the write budget): never retried blindly.
    retry: { ...options.retry, enabled: switches?.retry ?? true, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
  }));
  return Probot.defaults({ appId: config.appId, privateKey: config.privateKey, secret: config.webhookSecret, baseUrl: config.baseUrl, log, Octokit });
}

/**
 * GitHub's secondary rate limit: a read is retried after the time GitHub asks, twice at most; a
 * write is not retried here but fails, so the feedback writer pauses the installation's writes for
 * that time and puts the write off (src/github/writeBudget.ts): retrying in place would hold the one
 * feedback writer, and writing on while limited is what gets an integration banned.
 */
export function secondaryLimitHandler(log: Pick<Logger, "warn">) {
  return (retryAfter: number, options: { method?: string; url?: string }, _octokit: unknown, retryCount: number): boolean => {
    const write = !["GET", "HEAD"].includes((options.method ?? "GET").toUpperCase());
    log.warn(
      { method: options.method, url: options.url, retryAfter, retryCount },
      write
        ? "GitHub's secondary rate limit on a write: pausing this installation's writes"
        : "GitHub's secondary rate limit on a read: retrying after the time GitHub asks",
    );
    return !write && retryCount < 2;
  };
}

/** The services the loop shares, built around one Probot instance. Used by the server and the CLI. */
export function createServices(
  app: Probot,
  config: AppConfig,
  log: Logger,
  commands: Redis,
  queues: Queues,
  sandbox: Sandbox,
  channel: Services["channel"],
): Services {
  const settingsLoader = new RepoSettingsLoader(serverDefaults(config), config.repoConfigCacheSeconds * 1000);
  const codeownersLoader = new CodeownersLoader(config.repoConfigCacheSeconds * 1000);
  const repositoryInfo = repositoryInfoLoader(config.repoConfigCacheSeconds * 1000);
  return {
    config,
    ...openStores(commands, config.redisPrefix),
    queues,
    log,
    agents: new RunningAgents(commands, controlChannel(config.redisPrefix)),
    sandbox,
    channel,
    settings: (installationId, repo) => settingsLoader.load(() => app.auth(installationId), repo),
    codeowners: (installationId, repo) => codeownersLoader.load(() => app.auth(installationId), repo),
    events: new LoopEvents((error, event) => log.warn({ err: error, event }, "a loop observer failed")),
    github: {
      identity: appIdentityLoader(app),
      installation: (installationId) => app.auth(installationId),
      graphqlReads: (installationId) => graphqlReadsClient(app, installationId),
      ...tokenIssuer(app, config.agent.tokenPermissions),
      revokeAgentToken: agentTokenRevoker(app, log),
      repository: (installationId, repo) => repositoryInfo(() => app.auth(installationId), repo),
      app: () => app.auth(),
    },
  };
}
