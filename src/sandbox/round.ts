import type { AgentProcess } from "../agent/agentProcess.js";

/** The round as the sandbox needs it (roundPaths.ts turns it into what is shown). */
export interface SandboxRound {
  workdir: string;
  taskFile: string;
  /** The recipe's config directory, when the round has one. */
  recipeDir?: string;
}

/** One round's host paths the sandbox shows the agent. */
export interface RoundPaths {
  /** Read-write at its own path: the checkout or the fresh workdir. */
  workdir: string;
  /** Read-only at their own paths: the task file, the recipe's config, the checkout's object cache. */
  readOnly: string[];
}

/** How runAgent starts one round's gated command inside the sandbox. */
export interface RoundSandbox {
  /** The agent's executable (found on the host) as the sandbox shows it; SandboxError when it is not inside. */
  executable(hostPath: string): string;
  /** Where the sandbox's launcher writes a byte once the sandbox is up, before it waits for the release line. */
  readyFd: number;
  /**
   * Starts the sandbox, whose launcher runs `file args…` (as executable() shows it) in exactly `env`
   * once the release line (releaseGate.ts) comes on stdin. Once per round.
   */
  start(file: string, args: readonly string[], env: Record<string, string>): AgentProcess;
  /** The agent's environment as the sandbox needs it: its `escalate`, a private HOME and /tmp, the proxy. */
  env(env: Record<string, string>): Record<string, string>;
  /** Ends the round's network namespace: once its command has exited, or when it was never started. */
  release(): void;
}
