import { fillPlaceholders } from "./splitCommand.js";

/** The placeholders AGENT_COMMAND may use; filled per spawn. */
export const AGENT_PLACEHOLDERS = ["taskFile", "repo", "issue", "round", "workdir"] as const;

/** Fails at start-up, not at the first spawn, when `argv` names a placeholder AGENT_PLACEHOLDERS lacks. */
export function checkPlaceholders(argv: readonly string[], what?: string): void {
  fillPlaceholders(argv, Object.fromEntries(AGENT_PLACEHOLDERS.map((p) => [p, p])), what);
}
