import { accessSync, constants, statSync } from "node:fs";
import { delimiter, resolve } from "node:path";
import { AgentError } from "../errors.js";

/** The search path the C library's execvp uses when PATH is unset. */
const DEFAULT_PATH = "/usr/bin:/bin";

/**
 * The executable `file` names, found as execvp would: a name with a slash is a path from `cwd`,
 * anything else is looked up in the agent's PATH. The agent starts behind a shell's `exec` (see
 * runAgent), which would report a missing command only as exit status 127; resolving it here keeps
 * the clear "Could not start the agent" error.
 */
export function resolveCommand(file: string, cwd: string, path: string | undefined): string {
  const candidates = file.includes("/") ? [resolve(cwd, file)] : (path ?? DEFAULT_PATH).split(delimiter).map((dir) => resolve(cwd, dir || ".", file));
  let denied: string | undefined;
  for (const candidate of candidates) {
    if (!isFile(candidate)) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      denied ??= candidate;
    }
  }
  const reason = denied ? `${denied} is not executable (EACCES)` : `spawn ${file} ENOENT`;
  throw new AgentError(`Could not start the agent (${file}): ${reason}. Check AGENT_COMMAND.`);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
