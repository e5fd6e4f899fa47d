import type { IncomingMessage, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { Probot, ProbotOctokit, Server } from "probot";
import type { AppConfig } from "../config/env.js";
import { LoopEvents } from "../events.js";
import { RunningAgents } from "../agent/runningAgents.js";
import { serverDefaults } from "../config/repoConfig.js";
import { GateStore } from "../gates/store.js";
import { RepoSettingsLoader } from "../github/repoSettings.js";
import { agentTokenIssuer } from "../github/agentToken.js";
import { appIdentityLoader } from "../github/appIdentity.js";
import { registerWebhooks } from "../handlers/registerWebhooks.js";
import { commandConnection, producerConnection, workerConnection } from "../queue/connection.js";
import { Queues } from "../queue/queues.js";
import type { Services } from "../services.js";
import { startWorkers, type LoopWorkers } from "./workers.js";

export interface StartAppOptions {
  config: AppConfig & { redisUrl: string };
  log: Logger;
  /** Tests turn Octokit's retry and throttling off so calls are immediate and countable. */
  octokit?: { throttle: boolean; retry: boolean };
  /** Run the queue workers in this process (default true). */
  workers?: boolean;
}

export interface RunningApp {
  url: string;
  port: number;
  services: Services;
  workers: LoopWorkers | undefined;
  close(): Promise<void>;
}

/** Builds the Probot server, the queues and the workers, and starts listening. */
export async function startApp(options: StartAppOptions): Promise<RunningApp> {
  const { config, log } = options;
  const Octokit = ProbotOctokit.defaults({
    throttle: { enabled: options.octokit?.throttle ?? true },
    retry: { enabled: options.octokit?.retry ?? true },
  });
  const ProbotWithConfig = Probot.defaults({
    appId: config.appId,
    privateKey: config.privateKey,
    secret: config.webhookSecret,
    baseUrl: config.baseUrl,
    log,
    Octokit,
  });
  const server = new Server({ Probot: ProbotWithConfig, port: config.port, host: config.host, log, enableStaticFiles: false });

  const producer = producerConnection(config.redisUrl);
  const commands = commandConnection(config.redisUrl);
  const connections: Redis[] = [producer, commands];
  const queues = new Queues(producer, config.redisPrefix);
  let services: Services | undefined;

  const store = new GateStore(commands, config.redisPrefix);
  const agents = new RunningAgents(commands, store.keys.controlChannel());
  await server.load(async (app, { addHandler }) => {
    const settingsLoader = new RepoSettingsLoader(serverDefaults(config), config.repoConfigCacheSeconds * 1000);
    services = {
      config,
      store,
      queues,
      log,
      agents,
      settings: async (installationId, repo) => settingsLoader.load(await app.auth(installationId), repo),
      events: new LoopEvents((error, event) => log.warn({ err: error, event }, "a loop observer failed")),
      github: {
        identity: appIdentityLoader(app),
        installation: (installationId) => app.auth(installationId),
        agentToken: agentTokenIssuer(app, config.agent.tokenPermissions),
      },
    };
    registerWebhooks(app, services);
    addHandler(healthHandler(commands));
  });
  if (!services) throw new Error("Probot did not load the app");
  // A dedicated connection: a subscribed ioredis client can run no other command.
  const subscriber = workerConnection(config.redisUrl);
  connections.push(subscriber);
  await agents.listen(subscriber);
  const httpServer = await server.start();
  let workers: LoopWorkers | undefined;
  if (options.workers ?? true) {
    const workerRedis = workerConnection(config.redisUrl);
    connections.push(workerRedis);
    workers = startWorkers(services, workerRedis);
  }
  const address = httpServer.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const ready = services;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services: ready,
    workers,
    async close() {
      await server.stop().catch(() => undefined);
      await workers?.close(config.shutdownGraceSeconds * 1000);
      await queues.close();
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

/** GET /healthz: 200 when Redis answers, 503 otherwise. */
function healthHandler(redis: Redis) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.url !== "/healthz") return false;
    try {
      await redis.ping();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
    } catch (error) {
      res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ ok: false, error: (error as Error).message }));
    }
    return true;
  };
}
