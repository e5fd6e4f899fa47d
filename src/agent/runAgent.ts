import { spawn } from "node:child_process";
import { AgentError } from "../errors.js";
import { orphanWatchdog, signalGroup, type OrphanWatchdog } from "./watchdog.js";

export interface RunAgentOptions {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  input: string;
  timeoutMs: number;
  killGraceMs: number;
  /** Called once the process exists (it has a pid), before it produces anything. */
  onStart?: (pid: number) => void | Promise<void>;
  /** Aborting sends SIGTERM, then SIGKILL after killGraceMs (used by /stop and shutdown). */
  signal?: AbortSignal;
  /** How many trailing output lines to keep for the status comment. */
  tailLines?: number;
}

export interface AgentRun {
  exitCode: number | undefined;
  signal: string | undefined;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  tail: string[];
  failed: boolean;
}

/**
 * Spawns the agent without a shell and with exactly the environment given (no inheritance), the
 * task on stdin. Keeps only the tail of its output (stdout and stderr as they arrive): an agent may
 * print megabytes. Ends when the agent has exited and closed its output (as execa did; node's own
 * child_process because execa's stream plumbing cost ~3 % of the app's CPU, bench/README.md).
 *
 * The agent leads its own process group, and stopping it (timeout, /stop, shutdown) signals the
 * whole group, so the tools it started go too. The process's orphan watchdog stops the group if the
 * app dies first.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const [file, ...args] = options.argv;
  if (!file) throw new AgentError("The agent command is empty; set AGENT_COMMAND.");
  const started = Date.now();
  const keep = options.tailLines ?? 20;
  const watchdog = orphanWatchdog(options.killGraceMs);
  watchdog.start(); // already running unless this is the process's first agent: reading before the agent exists
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  const pid = child.pid;
  if (pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once("error", resolve));
    throw new AgentError(`Could not start the agent (${file}): ${error.message}. Check AGENT_COMMAND.`, { cause: error });
  }
  // The pid exists as soon as spawn returns: hand it to the watchdog before anything can interleave.
  watchdog.register(pid);
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  child.on("error", () => undefined); // a failed kill of an exiting agent: its close still comes
  let tail = "";
  const collect = (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-16_384);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  child.stdin?.on("error", () => undefined); // an agent that exits without reading its task
  child.stdin?.end(options.input);
  const stopper = groupStopper(pid, options, watchdog);
  try {
    await options.onStart?.(pid);
  } catch (error) {
    // The round cannot be recorded as started: stop the agent rather than leave it running unowned.
    stopper.stop("cancelled");
    await ended;
    stopper.done();
    throw error;
  }
  const { code, signal } = await ended;
  stopper.done();
  return {
    exitCode: code ?? undefined,
    signal: signal ?? undefined,
    timedOut: stopper.reason === "timedOut",
    cancelled: stopper.reason === "cancelled",
    durationMs: Date.now() - started,
    tail: tail.split(/\r?\n/).filter((line) => line.trim()).slice(-keep),
    failed: code !== 0,
  };
}

interface GroupStopper {
  reason: "timedOut" | "cancelled" | undefined;
  /** SIGTERM to the group now, SIGKILL after the kill grace. */
  stop(reason: "timedOut" | "cancelled"): void;
  /** The agent exited: clear the timers, kill what it left behind if it was being stopped, unwatch the group. */
  done(): void;
}

/** Timeout, abort signal and orphan watchdog for the process group led by `pgid`. */
function groupStopper(pgid: number, options: RunAgentOptions, watchdog: OrphanWatchdog): GroupStopper {
  const timers: NodeJS.Timeout[] = [];
  const onAbort = () => stopper.stop("cancelled");
  const stopper: GroupStopper = {
    reason: undefined,
    stop(reason) {
      if (stopper.reason) return;
      stopper.reason = reason;
      signalGroup(pgid, "SIGTERM");
      timers.push(setTimeout(() => signalGroup(pgid, "SIGKILL"), options.killGraceMs));
    },
    done() {
      timers.forEach(clearTimeout);
      options.signal?.removeEventListener("abort", onAbort);
      if (stopper.reason) signalGroup(pgid, "SIGKILL");
      watchdog.unregister(pgid);
    },
  };
  timers.push(setTimeout(() => stopper.stop("timedOut"), options.timeoutMs));
  if (options.signal?.aborted) stopper.stop("cancelled");
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  return stopper;
}
