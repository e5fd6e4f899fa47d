import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { OrphanWatchdog } from "../../../src/agent/watchdog.js";
import { isAlive } from "../../../tools/chaos/agents.js";
import { waitFor } from "../../support/harness.js";

/** A stand-in agent: a node process leading its own process group, staying until killed. */
function groupLeader(): ChildProcess & { pid: number } {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore", detached: true });
  if (child.pid === undefined) throw new Error("could not start a stand-in agent");
  return child as ChildProcess & { pid: number };
}

const leaders: ChildProcess[] = [];
const watchdogs: OrphanWatchdog[] = [];
afterEach(() => {
  for (const w of watchdogs.splice(0)) w.close();
  for (const c of leaders.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

function start(killGraceMs = 300): OrphanWatchdog {
  const watchdog = new OrphanWatchdog(killGraceMs);
  watchdogs.push(watchdog);
  watchdog.start();
  return watchdog;
}

function agent(): number {
  const child = groupLeader();
  leaders.push(child);
  return child.pid;
}

describe("the orphan watchdog (one per app process)", () => {
  it("stops every registered group, and only those, when its input ends (the app died)", async () => {
    const watchdog = start();
    const [a, b, c] = [agent(), agent(), agent()];
    watchdog.register(a);
    watchdog.register(b);
    watchdog.register(c);
    watchdog.unregister(b); // b ended while the app lived; its pid may be anyone's now
    watchdog.close();
    await waitFor("the registered agents to be stopped", () => !isAlive(a) && !isAlive(c), 10_000);
    expect(isAlive(b)).toBe(true);
  });

  it("SIGKILLs a group that ignores SIGTERM after the kill grace", async () => {
    const watchdog = start(500);
    const stubborn = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"], {
      stdio: ["ignore", "pipe", "ignore"],
      detached: true,
    });
    leaders.push(stubborn);
    await new Promise((resolve) => stubborn.stdout.once("data", resolve)); // its SIGTERM handler is installed
    watchdog.register(stubborn.pid!);
    const closedAt = Date.now();
    watchdog.close();
    await waitFor("the stubborn agent to be killed", () => !isAlive(stubborn.pid!), 10_000);
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(450);
  });

  it("is one process for many agents, not a process per agent", () => {
    const watchdog = start();
    const pid = watchdog.pid;
    for (let i = 0; i < 3; i++) watchdog.register(agent());
    expect(watchdog.pid).toBe(pid);
  });

  it("is restarted if it dies, and the new one watches the groups registered before", async () => {
    const watchdog = start();
    const a = agent();
    watchdog.register(a);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // lived over a second: restarted at once
    const first = watchdog.pid!;
    process.kill(first, "SIGKILL");
    await waitFor("a new watchdog", () => watchdog.pid !== undefined && watchdog.pid !== first, 10_000);
    watchdog.close();
    await waitFor("the agent registered before the restart to be stopped", () => !isAlive(a), 10_000);
  });
});
