import { spawn, type ChildProcess } from "node:child_process";

/**
 * The orphan watchdog: one tiny shell per app process (per kill grace) holding the read end of a
 * pipe from the app. Each agent's process group is registered (`+pgid`) the moment the agent has a
 * pid and unregistered (`-pgid`) when it ends. If the app dies without stopping its agents (SIGKILL,
 * OOM, a crash), the kernel closes the pipe and the watchdog stops every registered group (SIGTERM,
 * then SIGKILL after the kill grace), so the re-run of a stalled spawn job never runs beside a
 * leftover agent.
 *
 * One long-lived watchdog rather than one per agent: forking the app (a 100+ MB process) was the
 * largest cost of a resume (tools/bench/README.md, "Where the time goes"). A shell, not node: it starts in
 * a millisecond and holds no memory to speak of. Detached, so a terminal's Ctrl-C to the app's
 * process group does not take it first. The registration is a pipe write made before the event loop
 * turns, and the pipe exists before the shell is even exec'd: a line written before the shell reads
 * is still read after the app is gone. An agent forked but not yet registered when the app dies is
 * kept from starting by its release gate (releaseGate.ts).
 */
const SCRIPT = `groups=" "
while read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) id=\${line#-}
        case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
signalled=""
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null && signalled="$signalled $g"; done
[ -n "$signalled" ] || exit 0
sleep "$1" 2>/dev/null
for g in $signalled; do kill -s KILL -- "-$g" 2>/dev/null; done
exit 0`;

/** The watchdog shell's `$0`: how `ps -f` (and the benchmark) tells it from the agents. */
export const WATCHDOG_NAME = "escalation-watchdog";

/** Watches the process groups of running agents on behalf of the app; see the file's comment. */
export class OrphanWatchdog {
  readonly #killGraceMs: number;
  readonly #groups = new Set<number>();
  #child: ChildProcess | undefined;
  #startedAt = 0;
  #closed = false;

  constructor(killGraceMs: number) {
    this.#killGraceMs = killGraceMs;
  }

  /** The watchdog shell's pid, when one runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the shell unless one runs; the app calls it at start-up so no resume pays for the fork. */
  start(): void {
    if (this.#child || this.#closed) return;
    const child = spawn("/bin/sh", ["-c", SCRIPT, WATCHDOG_NAME, (this.#killGraceMs / 1000).toFixed(3)], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
      env: {},
    });
    this.#child = child;
    this.#startedAt = Date.now();
    child.on("error", () => undefined); // no watchdog (no /bin/sh, out of processes): agents still run, as before
    child.stdin?.on("error", () => undefined);
    child.once("exit", () => this.#restart(child));
    // Neither the watchdog nor its pipe may keep the app's event loop alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    for (const pgid of this.#groups) this.#send(`+${pgid}`);
  }

  /** The agent leading process group `pgid` was spawned: watch it from now on. */
  register(pgid: number): void {
    this.#groups.add(pgid);
    if (this.#child) this.#send(`+${pgid}`);
    else this.start();
  }

  /** The agent ended while the app lived: its group is no longer watched. */
  unregister(pgid: number): void {
    if (this.#groups.delete(pgid)) this.#send(`-${pgid}`);
  }

  /**
   * Ends the watchdog's input as the app's death would: it stops every group still registered and
   * exits. For a clean shutdown (nothing registered by then) and for tests.
   */
  close(): void {
    this.#closed = true;
    this.#child?.stdin?.end();
    this.#child = undefined;
  }

  /**
   * The watchdog died (killed, out of memory) while the app lives: a new one takes over every group,
   * at once unless the dead one lasted under a second (a shell that cannot run must not spin).
   */
  #restart(dead: ChildProcess): void {
    if (this.#child !== dead) return;
    this.#child = undefined;
    if (this.#closed) return;
    if (Date.now() - this.#startedAt >= 1000) this.start();
    else setTimeout(() => this.start(), 1000).unref();
  }

  #send(line: string): void {
    this.#child?.stdin?.write(`${line}\n`);
  }
}

const watchdogs = new Map<number, OrphanWatchdog>();

/** This process's watchdog for agents stopped with `killGraceMs` of grace (the app has one grace, so one watchdog). */
export function orphanWatchdog(killGraceMs: number): OrphanWatchdog {
  let watchdog = watchdogs.get(killGraceMs);
  if (!watchdog) {
    watchdog = new OrphanWatchdog(killGraceMs);
    watchdogs.set(killGraceMs, watchdog);
  }
  return watchdog;
}

/** Signals every process of the group `pgid`; false when there is none left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
