import { spawn } from "node:child_process";

/**
 * The orphan watchdog: a tiny shell per agent that holds the read end of a pipe from the app. It is
 * started before the agent, learns the agent's process group from the pipe's first line, and then
 * waits for end-of-file: if the app dies without stopping its agent (SIGKILL, OOM, a crash), the
 * kernel closes the pipe and the watchdog stops the agent's whole group (SIGTERM, then SIGKILL after
 * the kill grace), so BullMQ's re-run of the stalled job never runs beside a leftover agent. A shell,
 * not node: it must be reading before the app can die, and sh starts in a millisecond even on a
 * loaded host. Detached, so a terminal's Ctrl-C to the app's process group does not take it first.
 */
const SCRIPT = `read -r pgid 2>/dev/null || exit 0
read -r _ 2>/dev/null
kill -s TERM -- "-$pgid" 2>/dev/null || exit 0
sleep "$1" 2>/dev/null
kill -s KILL -- "-$pgid" 2>/dev/null
exit 0`;

export interface Watchdog {
  /** The agent was spawned and leads process group `pgid`: watch it from now on. */
  watch(pgid: number): void;
  /** The agent ended while the app lived (or never started): the watchdog is no longer needed. */
  stop(): void;
}

/** Starts a watchdog, before the agent, so no moment exists in which the agent runs unwatched. */
export function startWatchdog(killGraceMs: number): Watchdog {
  const child = spawn("/bin/sh", ["-c", SCRIPT, "watchdog", (killGraceMs / 1000).toFixed(3)], { stdio: ["pipe", "ignore", "ignore"], detached: true, env: {} });
  child.on("error", () => undefined); // no watchdog (no /bin/sh, out of processes): the agent still runs, as before
  child.stdin?.on("error", () => undefined);
  // Neither the watchdog nor its pipe may keep the app's event loop alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    watch(pgid) {
      child.stdin?.write(`${pgid}\n`);
    },
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
