import type { Server as HttpServer, IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { Server } from "probot";
import { orphanWatchdog } from "../agent/watchdog.js";
import type { AppConfig } from "../config/appConfig.js";
import { registerWebhooks } from "../webhook/registerWebhooks.js";
import { registerHttp } from "../http/index.js";
import { mirrorEvents, type StopMirroring } from "../mirror/mirrorEvents.js";
import { commandConnection, producerConnection, workerConnection } from "../queue/connection.js";
import { Queues } from "../queue/queues.js";
import { refuseCluster } from "../redis/refuseCluster.js";
import { withDeadline } from "../deadline.js";
import { noAgents, startSandbox, type Sandbox } from "../sandbox/sandbox.js";
import { startRunnerServer } from "../http/runnerServer.js";
import type { Services } from "../services/services.js";
import { EGRESS_DIR, startEgressProxy, type EgressEndpoints, type EgressProxy } from "../sandbox/egress/egressProxy.js";
import { egressPolicy } from "../sandbox/egress/policy.js";
import { channelRoutes } from "../channel/channelRoutes.js";
import { SANDBOX_CHANNEL_HOST } from "../channel/channelPaths.js";
import { startChannelServer, type ChannelServer } from "../channel/channelServer.js";
import { RoundGrants } from "../channel/roundGrants.js";
import { withQuietAccessLog } from "./accessLog.js";
import { createServices, probotClass, type OctokitSwitches } from "./createServices.js";
import { startWorkers, type LoopWorkers } from "./startWorkers.js";

export interface StartAppOptions {
  config: AppConfig & { redisUrl: string };
  log: Logger;
  /** Tests turn Octokit's retry and throttling off so calls are immediate and countable. */
  octokit?: OctokitSwitches;
  /** Run the queue workers in this process (default true). */
  workers?: boolean;
  /** Run the agents' egress proxy under DATA_DIR/egress; by default whenever agents run sandboxed (AGENT_SANDBOX=bwrap). */
  egress?: boolean;
}

export interface RunningApp {
  url: string;
  port: number;
  services: Services;
  workers: LoopWorkers | undefined;
  /** The egress proxy's sockets the sandbox bridges (src/sandbox/egress/); undefined when the app runs no proxy. */
  egress: EgressEndpoints | undefined;
  close(): Promise<void>;
}

/** How long requests under way at shutdown have to finish before their connections are closed. */
const LINGER_MS = 1000;

/**
 * Builds the Probot server, the queues and the workers, and starts listening. By ROLE: `all` does
 * everything; `app` runs no agent (no spawn worker, sandbox or egress proxy); `runner` serves no
 * webhook (only /healthz and /metrics) and runs only the spawn worker and its agents.
 */
export async function startApp(options: StartAppOptions): Promise<RunningApp> {
  const { config, log } = options;
  const runsAgents = config.role !== "app";
  const servesWebhooks = config.role !== "runner";
  const ProbotWithConfig = probotClass(config, log, options.octokit);
  const server = servesWebhooks
    ? new Server({ Probot: ProbotWithConfig, port: config.port, host: config.host, log: withQuietAccessLog(log), enableStaticFiles: false })
    : undefined;

  const producer = producerConnection(config.redisUrl);
  const commands = commandConnection(config.redisUrl);
  const connections: Redis[] = [];
  // One log line per failure instead of ioredis's "unhandled error event" on stderr.
  const track = (connection: Redis) => {
    connection.on("error", (error: Error) => log.warn({ err: error.message }, "Redis connection error"));
    connections.push(connection);
    return connection;
  };
  track(producer);
  track(commands);
  let queues: Queues | undefined;
  let services: Services | undefined;
  let workers: LoopWorkers | undefined;
  let stopMirroring: StopMirroring | undefined;
  let egress: EgressProxy | undefined;
  let sandbox: Sandbox | undefined;
  let httpServer: HttpServer | undefined;
  let channelServer: ChannelServer | undefined;
  // The round channel's handler needs the services, built after the proxy and its server listen.
  let channelHandler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const toChannel = (req: IncomingMessage, res: ServerResponse) =>
    channelHandler ? channelHandler(req, res) : res.writeHead(503, { "content-type": "text/plain" }).end("The app is starting.\n");
  // One way down, for close() and for a start that fails part-way (a port in use, Redis gone):
  // nothing the start opened stays open behind its error. With Redis gone, closing the queues and
  // QUIT would wait for it forever: give up after a few seconds.
  const close = async () => {
    // A browser's spare connection (opened ahead of a request that never comes) would hold the
    // server's close until it times out: requests under way get a moment, then every connection goes.
    const lingering = setTimeout(() => httpServer?.closeAllConnections(), LINGER_MS);
    if (server) await server.stop().catch(() => undefined);
    else await new Promise((resolve) => (httpServer ? httpServer.close(resolve) : resolve(undefined)));
    clearTimeout(lingering);
    await workers?.close(config.shutdownGraceSeconds * 1000);
    // After the workers: agents finishing within SHUTDOWN_GRACE still reach GitHub through them.
    sandbox?.close();
    await egress?.close();
    await channelServer?.close();
    stopMirroring?.();
    const giveUp = () => new Error("Redis did not answer during shutdown");
    if (queues) await withDeadline(queues.close(), 3000, giveUp).catch(() => undefined);
    await Promise.all(connections.map((c) => withDeadline(c.quit(), 2000, giveUp).catch(() => c.disconnect())));
  };

  // A dedicated connection: a subscribed ioredis client can run no other command. It retries
  // forever, as the workers' do, so it first waits for Redis to tell whether it is a cluster.
  const subscriber = track(workerConnection(config.redisUrl));
  try {
    await refuseCluster(subscriber);
    // After the check: a queue writes its metadata as it opens.
    const loopQueues = new Queues(producer, config.redisPrefix, (error, queue) => log.warn({ err: error.message, queue }, "queue connection error"));
    queues = loopQueues;
    if (runsAgents && (options.egress ?? config.sandbox.mode === "bwrap")) {
      const policy = egressPolicy({ baseUrl: config.baseUrl, serverUrl: config.serverUrl, networkAllow: config.agent.networkAllow });
      egress = await startEgressProxy({ dir: join(config.dataDir, EGRESS_DIR), policy, log, channel: { host: SANDBOX_CHANNEL_HOST, handle: toChannel } });
    }
    // Sandboxed agents reach the channel through the egress proxy; unsandboxed ones on a loopback port.
    if (runsAgents && config.sandbox.mode === "none") channelServer = await startChannelServer(toChannel);
    const channel = { url: channelServer?.url ?? (runsAgents ? `http://${SANDBOX_CHANNEL_HOST}` : ""), grants: new RoundGrants() };
    const agentSandbox = runsAgents ? await startSandbox(config.sandbox, log, egress?.endpoints, config.agent.concurrency) : noAgents(config.sandbox.mode);
    sandbox = agentSandbox;
    if (server) {
      await server.load((app, { addHandler }) => {
        services = createServices(app, config, log, commands, loopQueues, agentSandbox, channel);
        registerWebhooks(app, services);
        registerHttp(services, addHandler);
      });
    } else {
      services = createServices(new ProbotWithConfig(), config, log, commands, loopQueues, agentSandbox, channel);
    }
    if (!services) throw new Error("Probot did not load the app");
    channelHandler = channelRoutes({ ...services, grants: channel.grants });
    await services.agents.listen(subscriber);
    httpServer = server ? await server.start() : await startRunnerServer(services, config.port, config.host, log);
    if (options.workers ?? true) {
      // Running before the first agent, so no resume pays for forking it (it outlives close(): its end
      // of input is this process's exit).
      if (runsAgents) orphanWatchdog(config.agent.killGraceSeconds * 1000).start();
      const workerRedis = workerConnection(config.redisUrl);
      track(workerRedis);
      workers = startWorkers(services, workerRedis);
      if (servesWebhooks) await loopQueues.scheduleReconcile(config.reconcileIntervalSeconds);
    }
    stopMirroring = mirrorEvents(services);
    const address = httpServer.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    return { url: `http://127.0.0.1:${port}`, port, services, workers, egress: egress?.endpoints, close };
  } catch (error) {
    await close();
    throw error;
  }
}
