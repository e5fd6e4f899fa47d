import { execa } from "execa";

/** Where an agent's process starts: its working directory and exactly this environment (nothing inherited). */
export interface AgentSpawn {
  cwd: string;
  env: Record<string, string>;
  /** Pipes beyond stdin, stdout and stderr (fd 3, 4, …): a sandbox's ready byte and its round's arguments. */
  extraPipes?: number;
}

/** The agent's process as runAgent drives it; `spawned` settles once it has a pid (true) or could not start (false). */
export interface AgentProcess {
  subprocess: ReturnType<typeof spawnWith>;
  spawned: Promise<boolean>;
}

function spawnWith(file: string, args: readonly string[], spawn: AgentSpawn) {
  const extra = Array.from({ length: spawn.extraPipes ?? 0 }, () => "pipe" as const);
  return execa(file, args, {
    cwd: spawn.cwd,
    env: spawn.env,
    extendEnv: false,
    // Its own process group: stopping it signals the agent and every tool it started (runAgent.ts).
    detached: true,
    reject: false,
    // Read through onOutput, not execa's `all`: merging the two streams cost 2.7 ms of CPU a start (tools/bench/README.md).
    buffer: false,
    stripFinalNewline: false,
    stdio: ["pipe", "pipe", "pipe", ...extra] as const,
  });
}

/**
 * Starts `file args…` as an agent's process is started, unsandboxed or (src/sandbox/) a round's
 * bwrap, which may be started ahead of its round. `spawned` is taken at once: a process started
 * ahead has long emitted its "spawn" event by the time its round uses it.
 */
export function spawnAgentProcess(file: string, args: readonly string[], spawn: AgentSpawn): AgentProcess {
  const subprocess = spawnWith(file, args, spawn);
  const spawned = new Promise<boolean>((resolve) => {
    subprocess.once("spawn", () => resolve(true));
    subprocess.once("error", () => resolve(false));
  });
  return { subprocess, spawned };
}

/** Calls `listener` with each chunk the process writes on stdout or stderr, in the order they arrive. */
export function onOutput(subprocess: AgentProcess["subprocess"], listener: (chunk: Buffer) => void): void {
  subprocess.stdout?.on("data", listener);
  subprocess.stderr?.on("data", listener);
}
