import { loadConfig } from "./config/env.js";
import { EscalationError } from "./errors.js";
import { createLogger } from "./logging.js";
import { startPrivateRedis, type PrivateRedis } from "./redis/privateRedis.js";
import { safeRedisUrl, unauthenticatedRedisWarning } from "./redis/safeUrl.js";
import { startApp } from "./app/startApp.js";
import { recipeKeyWarnings } from "./agent/recipes/keyWarnings.js";

/** `npm start`: the app, its workers, and a private Redis when REDIS_URL is unset. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = await createLogger(config.logLevel);
  let redis: PrivateRedis | undefined;
  let redisUrl = config.redisUrl;
  if (!redisUrl) {
    redis = await startPrivateRedis({ dataDir: config.dataDir });
    redisUrl = redis.url;
    log.info({ dataDir: config.dataDir, url: safeRedisUrl(redisUrl) }, "REDIS_URL unset: started a private, password-protected redis-server with append-only persistence; its URL is in DATA_DIR/redis.url for operator commands");
  } else {
    const warning = unauthenticatedRedisWarning(redisUrl);
    if (warning) log.warn(warning);
  }
  if (!config.agent.command) log.warn("AGENT_COMMAND is unset: gates and answers are recorded, but no agent can be spawned");
  for (const warning of recipeKeyWarnings(config.agent)) log.warn(warning);
  const app = await startApp({ config: { ...config, redisUrl }, log });
  log.info({ url: app.url }, "escalation is running");
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: no new jobs; running agents get SHUTDOWN_GRACE");
    await app.close();
    await redis?.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error: unknown) => {
  const message = error instanceof EscalationError ? `${error.name}: ${error.message}` : error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(message);
  process.exit(1);
});
