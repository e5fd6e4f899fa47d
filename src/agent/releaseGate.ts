/**
 * The release gate an agent starts behind. The child is first a shell that waits for one line on
 * its stdin and then `exec`s the agent (same pid, same process group, the rest of stdin untouched:
 * a shell's `read` takes a pipe one byte at a time). The app writes that line only once the agent's
 * group is registered with the orphan watchdog. An app killed between the fork and the registration
 * has never written it: the shell reads end-of-file when the kernel closes the app's end of the
 * pipe, and exits without starting the agent. Without the gate that window left an agent nobody
 * watched, which BullMQ's re-run of the stalled job then ran beside (chaos run, seed 20261203).
 */
function script(keepPwd: boolean, shell: GateShell): string {
  // The shell exports a PWD of its own; the agent gets exactly the environment it was given.
  const pwd = keepPwd ? "" : "unset PWD\n";
  return `${shell.prelude ? `${shell.prelude}\n` : ""}read -r _ || exit 0\n${pwd}exec "$@"`;
}

/** Shell the gate runs before its read, overlapping the app's registration: the sandbox's (src/sandbox/bridgeScript.ts). */
export interface GateShell {
  prelude: string;
}

/** The gate shell's `$0`, seen in `ps` only for the moment before it becomes the agent. */
const NAME = "escalation-agent";

/** What opens the gate: the first line of the agent's stdin, before its task. */
export const RELEASE_LINE = "\n";

/**
 * The shell and its arguments that run `executable args…` once released, in the environment `env`.
 * `shell` is what a sandbox runs first (it says the sandbox is up).
 */
export function gatedCommand(executable: string, args: readonly string[], env: Record<string, string> = {}, shell: GateShell = { prelude: "" }): [file: string, args: string[]] {
  return ["/bin/sh", ["-c", script("PWD" in env, shell), NAME, executable, ...args]];
}
