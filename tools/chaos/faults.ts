import type { Redis } from "ioredis";
import type { GitHubSimulator } from "../simulator/index.js";
import type { AgentTracker } from "./agents.js";
import type { Fault } from "./plan.js";
import type { AppProcess, RedisServer } from "./processes.js";
import type { Rng } from "./rng.js";

/** What a fault acts on: the run's processes, the simulator, and the clock the run keeps. */
export interface FaultTarget {
  rng: Rng;
  sim: GitHubSimulator;
  redis: RedisServer;
  /** The harness's own Redis connection (for FLUSHALL). */
  client: Redis;
  tracker: AgentTracker;
  apps: Array<AppProcess | undefined>;
  startApp(replica: number): Promise<void>;
  runners: Array<AppProcess | undefined>;
  startRunner(index: number): Promise<void>;
  /** Waits `ms` while still following the agents (so lingering is seen while the app is down). */
  pause(ms: number): Promise<void>;
  mark: (text: string) => void;
  /** How long an agent may outlive its app: the kill grace, plus SHUTDOWN_GRACE after a SIGTERM. */
  limits: { sigkillMs: number; sigtermMs: number };
  /** Faults that go on in the background (a delivery pause); awaited before the run is checked. */
  background: Array<Promise<void>>;
}

/** Injects one fault; returns when the system is back up (the pause fault continues in the background). */
export async function inject(fault: Fault, t: FaultTarget): Promise<void> {
  switch (fault.kind) {
    case "kill-app":
      return killApps(fault, t);
    case "restart-redis":
      return restartRedis(fault, t);
    case "wipe-redis":
      return wipeRedis(fault, t);
    case "duplicate-deliveries":
      return redeliverSome(fault.count, t, "duplicated");
    case "pause-deliveries":
      return pauseDeliveries(fault, t);
    case "github-5xx":
      return failRequests(fault, t);
    case "secondary-limit":
      return tripSecondaryLimit(fault, t);
    case "lose-deliveries":
      return loseDeliveries(fault, t);
    case "kill-runner":
      return stopRunners(fault, "SIGKILL", t);
    case "term-runner":
      return stopRunners(fault, "SIGTERM", t);
  }
}

async function killApps(fault: Fault, t: FaultTarget): Promise<void> {
  const replicas = fault.replica >= t.apps.length ? t.apps.map((_, i) => i) : [fault.replica];
  for (const i of replicas) await stopProcess(t.apps[i], "SIGKILL", t);
  await t.pause(fault.downMs);
  for (const i of replicas) await restartApp(i, t);
}

/** SIGKILL (a lost node) or SIGTERM (a deploy) of a runner, or of every one; each starts again after `downMs`. */
async function stopRunners(fault: Fault, how: "SIGKILL" | "SIGTERM", t: FaultTarget): Promise<void> {
  const which = fault.replica >= t.runners.length ? t.runners.map((_, i) => i) : [fault.replica];
  await Promise.all(which.map((i) => stopProcess(t.runners[i], how, t)));
  await t.pause(fault.downMs);
  for (const i of which) {
    await t.startRunner(i);
    t.mark(`${t.runners[i]!.name} restarted (pid ${t.runners[i]!.pid})`);
  }
}

/** Stops an app or a runner, following its agents while a graceful stop waits out their grace. */
async function stopProcess(app: AppProcess | undefined, how: "SIGKILL" | "SIGTERM", t: FaultTarget): Promise<void> {
  if (!app?.running) return;
  t.tracker.appDied(app.pid, how, how === "SIGKILL" ? t.limits.sigkillMs : t.limits.sigtermMs);
  t.mark(`${how} ${app.name} (pid ${app.pid})`);
  const stopping = how === "SIGKILL" ? app.kill() : app.terminate();
  // Follow the agents while a graceful stop waits out their grace.
  while (app.running) await t.pause(100);
  await stopping;
  t.tracker.appExited(app.pid);
}

async function restartApp(replica: number, t: FaultTarget): Promise<void> {
  await t.startApp(replica);
  t.mark(`${t.apps[replica]!.name} restarted (pid ${t.apps[replica]!.pid})`);
}

async function restartRedis(fault: Fault, t: FaultTarget): Promise<void> {
  t.mark("redis-server: SIGTERM");
  await t.redis.stop();
  await t.pause(fault.downMs);
  await t.redis.start();
  t.mark("redis-server restarted from its append-only file");
}

/** Runs a harness command once the harness's own connection is back (after a restart it reconnects). */
async function whenConnected<T>(t: FaultTarget, command: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await command();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await t.pause(100);
    }
  }
}

async function wipeRedis(fault: Fault, t: FaultTarget): Promise<void> {
  await whenConnected(t, () => t.client.flushall());
  t.mark("redis: FLUSHALL");
  await t.pause(t.rng.int(0, 500));
  const how = fault.graceful ? "SIGTERM" : "SIGKILL";
  for (const app of t.apps) await stopProcess(app, how, t);
  for (let i = 0; i < t.apps.length; i++) await restartApp(i, t);
}

/** Sends `count` random past deliveries again, in random order, under their original delivery ids. */
async function redeliverSome(count: number, t: FaultTarget, what: string): Promise<void> {
  const ids = [...new Set(t.sim.deliveries.map((d) => d.id))];
  const chosen = t.rng.shuffle(ids).slice(0, count);
  for (const id of chosen) {
    const delivery = t.sim.deliveries.find((d) => d.id === id)!;
    const status = await t.sim.redeliver(id).catch((error: Error) => error.message);
    t.mark(`${what} delivery ${delivery.event}.${delivery.action ?? ""} ${id.slice(0, 8)} -> ${status}`);
  }
}

/**
 * Holds new deliveries back for a while; meanwhile older ones are sent again, so they arrive ahead
 * of newer events (reordered); then the held ones are flushed in order.
 */
function pauseDeliveries(fault: Fault, t: FaultTarget): Promise<void> {
  t.sim.setWebhookDelivery("paused");
  t.mark(`webhook deliveries paused for ${fault.downMs} ms`);
  t.background.push(
    (async () => {
      await new Promise((r) => setTimeout(r, fault.downMs));
      await redeliverSome(fault.count, t, "reordered");
      t.sim.setWebhookDelivery("live");
      t.mark("webhook deliveries live again");
    })(),
  );
  return Promise.resolve();
}

/** GitHub answers the next API requests (the app's, the agent's) with a server error. */
function failRequests(fault: Fault, t: FaultTarget): Promise<void> {
  const status = t.rng.pick([500, 502, 503] as const);
  t.sim.failRequests(fault.count, status);
  t.mark(`GitHub answers the next ${fault.count} API requests ${status}`);
  return Promise.resolve();
}

/** GitHub refuses the next content-creating request with its secondary rate limit and a Retry-After. */
function tripSecondaryLimit(fault: Fault, t: FaultTarget): Promise<void> {
  const status = t.rng.pick([403, 429] as const);
  t.sim.tripSecondaryLimit({ retryAfterSeconds: fault.count, status });
  t.mark(`GitHub's secondary limit: the next content-creating request is refused ${status}, retry-after ${fault.count} s`);
  return Promise.resolve();
}

/** GitHub loses the next deliveries: never sent, so only reconciliation (or a later event) finds what they carried. */
function loseDeliveries(fault: Fault, t: FaultTarget): Promise<void> {
  t.sim.loseDeliveries(fault.count);
  t.mark(`the next ${fault.count} webhook deliveries are lost`);
  return Promise.resolve();
}
