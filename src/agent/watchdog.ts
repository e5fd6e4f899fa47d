import { spawn } from "node:child_process";

/**
 * The orphan watchdog: a tiny shell per running agent that holds the read end of a pipe from the
 * app. If the app dies without stopping its agent (SIGKILL, OOM, a crash), the kernel closes the
 * pipe; `read` returns at end-of-file and the watchdog stops the agent's whole process group
 * (SIGTERM, then SIGKILL after the kill grace), so BullMQ's re-run of the stalled job never runs
 * beside a leftover agent. The app kills the watchdog when the agent ends. A shell, not node: it
 * must already be waiting when the app dies, and sh starts in a millisecond even on a loaded host.
 * Detached, so a terminal's Ctrl-C to the app's process group does not take it down first.
 */
const SCRIPT = `read -r _ 2>/dev/null
kill -s TERM -- "-$1" 2>/dev/null || exit 0
sleep "$2" 2>/dev/null
kill -s KILL -- "-$1" 2>/dev/null
exit 0`;

export interface Watchdog {
  /** The agent ended while the app lived: the watchdog is no longer needed. */
  stop(): void;
}

/** Starts the watchdog of the process group `pgid` (the agent leads its own group). */
export function watchAgentGroup(pgid: number, killGraceMs: number): Watchdog {
  const child = spawn("/bin/sh", ["-c", SCRIPT, "watchdog", String(pgid), (killGraceMs / 1000).toFixed(3)], { stdio: ["pipe", "ignore", "ignore"], detached: true, env: {} });
  child.on("error", () => undefined); // no watchdog (no /bin/sh, out of processes): the agent still runs, as before
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
