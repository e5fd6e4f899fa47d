import { Probot, Server } from "probot";
import { withQuietAccessLog } from "../../src/app/accessLog.js";
import { createLogger } from "../../src/logging.js";

/**
 * The yardstick for acknowledging webhook deliveries: a bare Probot app on the same server as the
 * app's (Probot's Server, its webhook route and signature check, the same quiet access log) whose
 * handler does nothing. Started by the benchmark in its own process; says `ready` over IPC.
 */
async function main(): Promise<void> {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`the bare Probot app needs ${name}`);
    return value;
  };
  const log = await createLogger(process.env.LOG_LEVEL ?? "info");
  const host = env("HOST");
  const port = Number(env("PORT"));
  const server = new Server({
    Probot: Probot.defaults({ appId: env("APP_ID"), privateKey: env("PRIVATE_KEY"), secret: env("WEBHOOK_SECRET"), log }),
    port,
    host,
    log: withQuietAccessLog(log),
    enableStaticFiles: false,
  });
  await server.load((app) => {
    app.on("issue_comment.created", () => Promise.resolve());
  });
  await server.start();
  process.on("SIGTERM", () => process.exit(0));
  process.on("disconnect", () => process.exit(0));
  process.send?.({ type: "ready", url: `http://${host}:${port}`, pid: process.pid });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
