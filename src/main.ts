import { loadConfig } from "./config/env.js";
import { EscalationError } from "./errors.js";
import { createLogger } from "./logging.js";
import { startPrivateRedis, type PrivateRedis } from "./redis/privateRedis.js";
import { safeRedisUrl, unauthenticatedRedisWarning } from "./redis/safeUrl.js";
import { startApp } from "./app/startApp.js";
import { stopOnSignals } from "./app/stopOnSignals.js";
import { recipeKeyWarnings } from "./agent/recipes/keyWarnings.js";

/** `npm start`: the app, its workers (as ROLE says), and a private Redis when REDIS_URL is unset. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = await createLogger(config.logLevel);
  let redis: PrivateRedis | undefined;
  let redisUrl = config.redisUrl;
  if (!redisUrl) {
    redis = await startPrivateRedis({ dataDir: config.dataDir });
    redisUrl = redis.url;
    log.info(
      { dataDir: config.dataDir, url: safeRedisUrl(redisUrl) },
      "REDIS_URL unset: started a private, password-protected redis-server with append-only persistence; its URL is in DATA_DIR/redis.url for operator commands",
    );
  } else {
    const warning = unauthenticatedRedisWarning(redisUrl);
    if (warning) log.warn(warning);
  }
  // The agent's settings matter where agents run: not on an app whose runners run them (ROLE=app).
  if (config.role !== "app") {
    if (!config.agent.command) log.warn("AGENT_COMMAND is unset: gates and answers are recorded, but no agent can be spawned");
    for (const warning of recipeKeyWarnings(config.agent)) log.warn(warning);
  }
  const app = await startApp({ config: { ...config, redisUrl }, log });
  log.info({ url: app.url, role: config.role, ...(config.role === "app" ? {} : { runner: config.runnerName }) }, "escalation is running");
  stopOnSignals({
    async graceful(signal) {
      log.info({ signal }, "shutting down: no new jobs; running agents get SHUTDOWN_GRACE (a second Ctrl-C exits at once)");
      // Redis last: the app's shutdown still needs it (the private one is out of reach of a terminal's Ctrl-C).
      await app.close();
      await redis?.stop();
    },
    now(signal) {
      // The orphan watchdog stops the running agents (SIGTERM, then SIGKILL after AGENT_KILL_GRACE)
      // and their rounds are retried by the next app, as after a crash.
      redis?.stopAtExit();
      log.warn({ signal }, "second signal: exiting now; the watchdog stops running agents and the next start retries their rounds");
    },
  });
}

main().catch((error: unknown) => {
  const message =
    error instanceof EscalationError ? `${error.name}: ${error.message}` : error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(message);
  process.exit(1);
});
