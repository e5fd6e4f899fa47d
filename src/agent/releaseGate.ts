/**
 * The release gate an agent starts behind. The child is first a shell that waits for one line on
 * its stdin and then `exec`s the agent (same pid, same process group, the rest of stdin untouched:
 * a shell's `read` takes a pipe one byte at a time). The app writes that line only once the agent's
 * group is registered with the orphan watchdog. An app killed between the fork and the registration
 * has never written it: the shell reads end-of-file when the kernel closes the app's end of the
 * pipe, and exits without starting the agent. Without the gate that window left an agent nobody
 * watched, which the re-run of the stalled spawn job then ran beside (chaos run, seed 20261203).
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

/** Names of the environment the launcher reads the agent's command from, and removes before it runs it. */
const ARGC = "ESCALATION_LAUNCH_ARGC";
const ARG = "ESCALATION_LAUNCH_ARG_";
const KEEP_PWD = "ESCALATION_LAUNCH_KEEP_PWD";

/**
 * The launcher: the release gate for a process started before its command is known (a sandboxed
 * round's bwrap is started ahead, src/sandbox/pendingRound.ts). Once released it takes the command
 * from the environment launchEnv() wrote (eval only ever sees a variable's name, never a value),
 * removes those variables, and execs it; without one it exits 125 and runs nothing.
 */
function launcherScript(shell: GateShell): string {
  const lines = [
    "read -r _ || exit 0",
    "set --",
    "ESCALATION_LAUNCH_I=0",
    `while [ "$ESCALATION_LAUNCH_I" -lt "\${${ARGC}:-0}" ]; do`,
    `  eval "set -- \\"\\$@\\" \\"\\$${ARG}$ESCALATION_LAUNCH_I\\""`,
    `  unset "${ARG}$ESCALATION_LAUNCH_I"`,
    "  ESCALATION_LAUNCH_I=$((ESCALATION_LAUNCH_I + 1))",
    "done",
    `unset ESCALATION_LAUNCH_I ${ARGC}`,
    `[ -n "\${${KEEP_PWD}-}" ] || unset PWD`,
    `unset ${KEEP_PWD}`,
    '[ "$#" -gt 0 ] || exit 125',
    'exec "$@"',
  ];
  return [...(shell.prelude ? [shell.prelude] : []), ...lines].join("\n");
}

/** The launcher's shell and arguments: a command that does not depend on the round. */
export function launcherCommand(shell: GateShell): [file: string, args: string[]] {
  return ["/bin/sh", ["-c", launcherScript(shell), NAME]];
}

/** The environment the launcher runs `executable args…` from: `env`, plus the command for it to take out. */
export function launchEnv(executable: string, args: readonly string[], env: Record<string, string>): Record<string, string> {
  const argv = [executable, ...args];
  const out: Record<string, string> = { ...env, [ARGC]: String(argv.length) };
  argv.forEach((arg, i) => (out[`${ARG}${i}`] = arg));
  if ("PWD" in env) out[KEEP_PWD] = "1";
  return out;
}

/**
 * The shell and its arguments that run `executable args…` once released, in the environment `env`.
 * `shell` is what a sandbox runs first (it says the sandbox is up).
 */
export function gatedCommand(
  executable: string,
  args: readonly string[],
  env: Record<string, string> = {},
  shell: GateShell = { prelude: "" },
): [file: string, args: string[]] {
  return ["/bin/sh", ["-c", script("PWD" in env, shell), NAME, executable, ...args]];
}
