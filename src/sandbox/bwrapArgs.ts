/** Where the app's own code (`escalate` and what it imports) is inside the sandbox. */
export const APP_DIR = "/opt/escalation";
/** The agent's home inside the sandbox: a private tmpfs, gone with the sandbox. */
export const SANDBOX_HOME = "/home/agent";
/** Where the egress proxy's sockets are inside the sandbox. */
export const EGRESS_DIR = "/run/escalation";

/** What of the host the sandbox shows, read once at start (hostLayout.ts). */
export interface SandboxLayout {
  /** Top-level system paths: bound read-only, or recreated as the symlink they are (merged /usr). */
  system: Array<{ path: string; symlink?: string }>;
  /** Entries of /etc bound read-only when they exist (not all of /etc). */
  etc: string[];
  /** Further host paths bound read-only at their own path: node's prefix outside /usr, AGENT_SANDBOX_BIND. */
  extra: string[];
  /** The app's code `escalate` needs: `root`'s `entries`, bound read-only under APP_DIR. */
  app: { root: string; entries: string[] };
  /** Root drops every capability; anyone else gets a user namespace. */
  asRoot: boolean;
}

/** One round's host paths. */
export interface RoundMounts {
  /** The agent's working directory (the checkout, or a fresh directory): read-write at its own path. */
  workdir: string;
  /** Files and directories it reads at their own path: the task file, the recipe's config, the checkout's object cache. */
  readOnly: string[];
}

/**
 * "joined": bwrap runs inside a warm network namespace already (networkSpares.ts), whose bridges
 * reach the egress proxy; "none": a namespace of its own with nothing but a loopback.
 */
export type RoundNetwork = "joined" | "none";

/**
 * bwrap's arguments (up to the `--` before the command) for a round's sandbox, known before the
 * round is: bwrap is started ahead with them (pendingRound.ts) and reads the round's own (roundArgs)
 * from `argsFd` where `--args` stands, before it sets anything up. Mounts are applied in order: the
 * empty root, the system, the private /tmp and home, then the extra paths, the app's code and the
 * round's own paths (so one under /tmp shows through), and last the root made read-only.
 *
 * No `--die-with-parent` and no `--new-session`: the sandbox stays in the app's process group for
 * the agent, so stopping it (timeout, /stop, shutdown, the orphan watchdog) signals the agent itself,
 * which keeps its kill grace; the group's SIGKILL then takes the namespace's init, and with it every
 * process left inside, including any that left the group.
 */
export function sandboxArgs(layout: SandboxLayout, network: RoundNetwork, argsFd: number): string[] {
  const args = [
    "--unshare-pid",
    ...(network === "none" ? ["--unshare-net"] : []),
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...identity(layout),
  ];
  args.push(...systemArgs(layout));
  for (const path of layout.etc) args.push("--ro-bind-try", path, path);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", SANDBOX_HOME);
  for (const path of layout.extra) args.push("--ro-bind", path, path);
  for (const entry of layout.app.entries) args.push("--ro-bind", `${layout.app.root}/${entry}`, `${APP_DIR}/${entry}`);
  args.push("--args", String(argsFd), "--remount-ro", "/");
  return args;
}

/** The round's own arguments, read where sandboxArgs has `--args`: its paths, and its directory to start in. */
export function roundArgs(round: RoundMounts): string[] {
  const args = ["--bind", round.workdir, round.workdir];
  for (const path of round.readOnly) args.push("--ro-bind", path, path);
  args.push("--chdir", round.workdir);
  return args;
}

/**
 * bwrap's arguments for a warm network namespace's holder (networkSpares.ts): its own network with
 * the egress sockets at EGRESS_DIR, /usr for the shell and socat, its /proc (the bridges are waited for in /proc/net/tcp), and nothing else. No `--dev`:
 * unprivileged, bwrap would then nest a second user namespace, and the network namespace's owner
 * would no longer be the one a round can enter. `--die-with-parent`: the app's death ends it.
 */
export function holderArgs(layout: SandboxLayout, egressDir: string): string[] {
  // It may listen on a loopback GitHub's port below 1024 (a round's own processes keep no capability).
  return [
    "--unshare-net",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    ...identity(layout),
    "--cap-add",
    "CAP_NET_BIND_SERVICE",
    "--die-with-parent",
    ...systemArgs(layout),
    "--proc",
    "/proc",
    "--dev-bind",
    "/dev/null",
    "/dev/null",
    "--ro-bind",
    egressDir,
    EGRESS_DIR,
    "--remount-ro",
    "/",
  ];
}

/** Root drops every capability; anyone else gets a user namespace. */
function identity(layout: SandboxLayout): string[] {
  return layout.asRoot ? ["--cap-drop", "ALL"] : ["--unshare-user"];
}

function systemArgs(layout: SandboxLayout): string[] {
  return layout.system.flatMap((entry) => (entry.symlink === undefined ? ["--ro-bind", entry.path, entry.path] : ["--symlink", entry.symlink, entry.path]));
}
