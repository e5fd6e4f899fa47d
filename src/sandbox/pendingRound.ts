import type { Duplex } from "node:stream";
import { spawnAgentProcess, type AgentProcess } from "../agent/agentProcess.js";
import { launchEnv } from "../agent/releaseGate.js";

/** The descriptor a round's bwrap reads the round's own arguments from (`--args`, sandboxArgs). */
export const ROUND_ARGS_FD = 4;

/**
 * A round's bwrap started before its round: blocked reading its round's arguments, with nothing set
 * up yet. Started ahead inside a warm network namespace (networkSpares.ts), it takes the app's fork,
 * nsenter's and bwrap's exec off the path from a reply to the agent (tools/bench/README.md, "The sandbox's
 * start"). Its command is the launcher (releaseGate.ts), so nothing of the round is on its command line.
 */
export interface PendingRound {
  /**
   * Starts the round's sandbox with `args` (roundArgs) and runs `file args…` in exactly `env` once
   * released; once only. The app's end of the arguments closes here, so bwrap goes on at once.
   */
  start(args: readonly string[], file: string, fileArgs: readonly string[], env: Record<string, string>): AgentProcess;
  /** Ends it unused (its network namespace was not taken, or is being released). */
  discard(): void;
}

/** `command`: bwrap (inside nsenter for a warm namespace) with sandboxArgs(…, ROUND_ARGS_FD) and the launcher. */
export function pendingRound([file, args]: [string, string[]]): PendingRound {
  // Neither its cwd nor its environment reaches the round: --chdir and --clearenv come with the round's arguments.
  const child = spawnAgentProcess(file, args, { cwd: "/", env: { PATH: "/usr/bin:/bin" }, extraPipes: 2 });
  const argsPipe = child.subprocess.stdio[ROUND_ARGS_FD] as Duplex;
  argsPipe.on("error", () => undefined);
  argsPipe.resume(); // bwrap writes nothing on it; read its end so the stream can finish
  let used = false;
  return {
    start(roundArguments, command, commandArgs, env) {
      if (used) throw new Error("A pending round's sandbox is started once.");
      used = true;
      const environment = Object.entries(launchEnv(command, commandArgs, env)).flatMap(([name, value]) => ["--setenv", name, value]);
      argsPipe.end([...roundArguments, "--clearenv", ...environment].map((arg) => `${arg}\0`).join(""));
      return child;
    },
    discard() {
      if (used) return;
      used = true;
      // Still blocked in its read: nothing ran, nothing to stop gracefully.
      child.subprocess.kill("SIGKILL");
    },
  };
}
