import { execa } from "execa";
import { AgentError } from "../errors.js";

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
 * task on stdin. Keeps only the tail of its output: an agent may print megabytes.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const [file, ...args] = options.argv;
  if (!file) throw new AgentError("The agent command is empty; set AGENT_COMMAND.");
  const started = Date.now();
  const keep = options.tailLines ?? 20;
  let tail = "";
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    input: options.input,
    timeout: options.timeoutMs,
    killSignal: "SIGTERM",
    forceKillAfterDelay: options.killGraceMs,
    cancelSignal: options.signal,
    reject: false,
    buffer: false,
    all: true,
    stripFinalNewline: false,
  });
  subprocess.all?.on("data", (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-16_384);
  });
  const spawned = new Promise<boolean>((resolve) => {
    subprocess.once("spawn", () => resolve(true));
    subprocess.once("error", () => resolve(false));
  });
  if ((await spawned) && subprocess.pid !== undefined) await options.onStart?.(subprocess.pid);
  const result = await subprocess;
  if (result.failed && result.exitCode === undefined && !result.signal && !result.isCanceled && !result.timedOut) {
    throw new AgentError(`Could not start the agent (${file}): ${result.shortMessage}. Check AGENT_COMMAND.`, { cause: result });
  }
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    cancelled: result.isCanceled,
    durationMs: Date.now() - started,
    tail: tail.split(/\r?\n/).filter((line) => line.trim()).slice(-keep),
    failed: result.failed,
  };
}
