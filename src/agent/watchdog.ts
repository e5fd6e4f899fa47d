import { spawn } from "node:child_process";

/**
 * The orphan watchdog: a tiny process per running agent that holds the read end of a pipe from the
 * app. If the app dies without stopping its agent (SIGKILL, OOM, a crash), the kernel closes the
 * pipe; the watchdog sees end-of-file and stops the agent's whole process group (SIGTERM, then
 * SIGKILL after the kill grace), so BullMQ's re-run of the stalled job never runs beside a leftover
 * agent. It exits on its own once the group is gone, and the app kills it when the agent ends.
 * A detached process: neither a terminal's Ctrl-C nor the app's own death takes it down first.
 */
const SCRIPT = `
const [pgid, graceMs] = process.argv.slice(1).map(Number);
const signal = (name) => { try { process.kill(-pgid, name); return true; } catch { return false; } };
let fired = false;
const fire = () => {
  if (fired) return;
  fired = true;
  signal("SIGTERM");
  setTimeout(() => { signal("SIGKILL"); process.exit(0); }, graceMs);
};
process.stdin.on("end", fire);
process.stdin.on("error", fire);
process.stdin.resume();
process.on("SIGTERM", fire);
setInterval(() => { if (!fired && !signal(0)) process.exit(0); }, 1000);
`;

export interface Watchdog {
  /** The agent ended normally: the watchdog is no longer needed. */
  stop(): void;
}

/** Starts the watchdog of the process group `pgid` (the agent leads its own group). */
export function watchAgentGroup(pgid: number, killGraceMs: number): Watchdog {
  const child = spawn(process.execPath, ["-e", SCRIPT, String(pgid), String(killGraceMs)], { stdio: ["pipe", "ignore", "ignore"], detached: true, env: {} });
  child.on("error", () => undefined); // no watchdog (e.g. out of processes): the agent still runs, as before
  child.stdin?.on("error", () => undefined);
  // Neither the watchdog nor its pipe may keep the app's event loop alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** Signals every process of the group `pgid`; false when there is none left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
