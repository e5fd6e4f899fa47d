import { startApp } from "../../src/app/startApp.js";
import { loadConfig } from "../../src/config/env.js";
import { createLogger } from "../../src/logging.js";

/**
 * The app as the benchmark runs it: the real startApp (Probot server, queues, workers) in its own
 * process, so its CPU, RSS and heap are its own and `node --cpu-prof` profiles only the app. The
 * same as `node dist/main.js` except: REDIS_URL is required, Octokit's throttling follows
 * BENCH_THROTTLE (see tools/bench/README.md), and over IPC it reports `agent.started` events and
 * answers memory probes (`node --expose-gc` lets a probe measure the heap after a full GC).
 */
interface Probe {
  type: "memory";
  id: number;
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.redisUrl) throw new Error("the benchmark's app needs REDIS_URL");
  const log = await createLogger(config.logLevel);
  const throttle = process.env.BENCH_THROTTLE === "on";
  const app = await startApp({ config: { ...config, redisUrl: config.redisUrl }, log, octokit: { throttle, retry: true } });
  // Batched, so reporting costs the app one IPC write per 100 ms rather than one per spawn.
  let batch: unknown[] = [];
  const flush = () => {
    if (batch.length > 0) process.send?.({ type: "agent.started", events: batch });
    batch = [];
  };
  setInterval(flush, 100).unref();
  app.services.events.on("agent.started", (event) => {
    batch.push({ repo: event.repo, issue: event.issue, round: event.round, replyToSpawnMs: event.replyToSpawnMs, at: Date.now() });
  });
  process.on("message", (message: Probe) => {
    if (message?.type !== "memory") return;
    const collect = (globalThis as { gc?: () => void }).gc;
    collect?.();
    const usage = process.memoryUsage();
    process.send?.({
      type: "memory",
      id: message.id,
      rss: usage.rss,
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      external: usage.external,
      afterGc: Boolean(collect),
    });
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("disconnect", () => void stop());
  process.send?.({ type: "ready", url: app.url, pid: process.pid });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
