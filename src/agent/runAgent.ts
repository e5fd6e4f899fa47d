import { AgentError, SandboxError } from "../errors.js";
import { SANDBOX_ADVICE } from "../sandbox/probe.js";
import type { RoundSandbox } from "../sandbox/round.js";
import { onOutput, spawnAgentProcess, type AgentProcess } from "./agentProcess.js";
import { RELEASE_LINE, gatedCommand } from "./releaseGate.js";
import { resolveCommand } from "./resolveCommand.js";
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
  /** Runs the agent inside this sandbox (src/sandbox/); SandboxError when it does not come up. */
  sandbox?: RoundSandbox;
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
 * task on stdin. Keeps only the tail of its output: an agent may print megabytes.
 *
 * The agent leads its own process group, and stopping it (timeout, /stop, shutdown) signals the
 * whole group, so the tools it started go too. The process's orphan watchdog stops the group if the
 * app dies first, and the release gate (releaseGate.ts) keeps the agent from starting at all if the
 * app dies before the watchdog knows its group.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const [file, ...args] = options.argv;
  if (!file) throw new AgentError("The agent command is empty; set AGENT_COMMAND.");
  const started = Date.now();
  const keep = options.tailLines ?? 20;
  let tail = "";
  const watchdog = orphanWatchdog(options.killGraceMs);
  watchdog.start(); // already running unless this is the process's first agent: reading before the agent exists
  const { sandbox } = options;
  const executable = resolveCommand(file, options.cwd, options.env.PATH);
  // Sandboxed, bwrap sets up at once (it was started ahead) and the gate waits inside it: its setup overlaps the registration.
  const { subprocess, spawned: hasPid } = sandbox
    ? sandbox.start(sandbox.executable(executable), args, options.env)
    : spawnAgentProcess(...gatedCommand(executable, args, options.env), { cwd: options.cwd, env: options.env });
  const sandboxUp = sandbox ? readyByte(subprocess.stdio[sandbox.readyFd]) : undefined;
  // The pid exists as soon as execa returns: hand it to the watchdog, and only then open the gate.
  if (subprocess.pid !== undefined) watchdog.register(subprocess.pid);
  subprocess.stdin?.end(RELEASE_LINE + options.input);
  onOutput(subprocess, (chunk) => {
    tail = (tail + chunk.toString("utf8")).slice(-16_384);
  });
  const pid = (await hasPid) ? subprocess.pid : undefined;
  if (pid === undefined && subprocess.pid !== undefined) watchdog.unregister(subprocess.pid);
  const stopper = pid === undefined ? undefined : groupStopper(pid, options, watchdog);
  if (pid !== undefined) endsWithAgent(subprocess, pid);
  try {
    if (pid !== undefined) await options.onStart?.(pid);
  } catch (error) {
    // The round cannot be recorded as started: stop the agent rather than leave it running unowned.
    stopper?.stop("cancelled");
    await subprocess;
    stopper?.done();
    throw error;
  }
  const result = await subprocess;
  stopper?.done();
  // An agent that exits 0 finished its round, even when a stop raced its end (a lock lost while it
  // exited, a timeout in its last moment): taken as stopped, its finished round would be run again.
  const finished = result.exitCode === 0;
  const timedOut = stopper?.reason === "timedOut" && !finished;
  const cancelled = stopper?.reason === "cancelled" && !finished;
  if (result.failed && result.exitCode === undefined && !result.signal && !cancelled && !timedOut) {
    throw new AgentError(`Could not start the agent (${file}): ${result.shortMessage}. Check AGENT_COMMAND.`, { cause: result });
  }
  if (sandboxUp && !(await sandboxUp) && !cancelled && !timedOut) {
    const said = tail.trim().split(/\r?\n/).slice(-3).join(" ") || `exit ${result.exitCode ?? result.signal}`;
    throw new SandboxError(`The agent sandbox (AGENT_SANDBOX=bwrap) did not start: ${said}. The agent was not run. ${SANDBOX_ADVICE}.`, { cause: result });
  }
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut,
    cancelled,
    durationMs: Date.now() - started,
    tail: tail
      .split(/\r?\n/)
      .filter((line) => line.trim())
      .slice(-keep),
    failed: result.failed,
  };
}

/** Output the agent wrote just before it exited is read for this long before pipes an escaped process holds open are closed. */
const DRAIN_MS = 100;

/**
 * The round ends when the agent's own process exits, not when its pipes close: what it left in its
 * process group is killed at once, and a pipe that a process which left the group (setsid) still
 * holds is closed after DRAIN_MS. Sandboxed, bwrap exits with the agent and the group holds the pid
 * namespace's init, whose death takes every process left inside, those that left the group too.
 * Unsandboxed, such a process outlives the round, without a token: the round revokes it.
 */
function endsWithAgent(subprocess: AgentProcess["subprocess"], pgid: number): void {
  subprocess.once("exit", () => {
    signalGroup(pgid, "SIGKILL");
    const timer = setTimeout(() => subprocess.stdio.forEach((stream) => stream?.destroy()), DRAIN_MS);
    subprocess.once("close", () => clearTimeout(timer));
  });
}

/** Whether the sandbox's shell wrote its byte on the ready pipe before the pipe closed. */
function readyByte(stream: unknown): Promise<boolean> {
  const readable = stream as NodeJS.ReadableStream | null | undefined;
  if (!readable) return Promise.resolve(false);
  return new Promise((resolve) => {
    readable.once("data", () => resolve(true));
    readable.once("end", () => resolve(false));
    // Destroyed (endsWithAgent) rather than ended.
    readable.once("close", () => resolve(false));
    readable.once("error", () => resolve(false));
    readable.resume();
  });
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
