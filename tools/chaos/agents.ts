import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";

/** One line of the chaos agent's log (test/support/agents/chaos-agent.mjs). */
interface AgentLine {
  event: "start" | "asked" | "end" | "signal" | "failed";
  issue: number;
  round: number;
  pid: number;
  ppid: number;
  at: number;
  resumes?: string;
  token?: string;
  url?: string;
  titled?: boolean;
}

/** One agent process, as its log lines and our liveness polling saw it. */
export interface AgentProcess {
  pid: number;
  /** The app process that spawned it. */
  appPid: number;
  issue: number;
  round: number;
  startedAt: number;
  /** The gate (ask comment id) whose answer this round resumes: the last answered question in its task. */
  resumes?: string;
  /** The answer token the task carried for that gate (the ask id the human's reply named). */
  token?: string;
  /** Its task carried the issue's title (a task rebuilt from a Redis that lost the issue would not). */
  titled: boolean;
  /** The ask comment it posted (round 0). */
  asked?: string;
  /** Logged "asked": its ask comment is posted; from here it only exits. */
  askedAt?: number;
  /** When the ask comment it posted appeared on the issue (at the latest), which may be before "asked". */
  askPostedAt?: number;
  /** Logged "end": the round ran to completion. */
  completedAt?: number;
  signalledAt?: number;
  /** Logged "failed": it gave up by itself (its ask refused by GitHub) and exited 1, a failure the app retries. */
  failedAt?: number;
  /** When it was first seen gone (or its end/signal time, if earlier). */
  diedAt?: number;
}

interface AppDeath {
  appPid: number;
  /** When it was signalled. */
  at: number;
  /** When it was gone: after a SIGTERM the app lives on through the shutdown grace and records what ends in it. */
  exitedAt?: number;
  /** How long its agents may outlive it: kill grace (+ shutdown grace for SIGTERM) and slack. */
  limitMs: number;
  how: "SIGKILL" | "SIGTERM";
}

/** True while `pid` exists and is not a zombie (an orphan may sit unreaped under a minimal init). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Follows the agents' log and their processes: which rounds started, completed, or died with their
 * app, and whether any outlived a dead app (lingering) or ran beside another agent of its issue.
 */
export class AgentTracker {
  readonly processes: AgentProcess[] = [];
  readonly violations: string[] = [];
  readonly #deaths: AppDeath[] = [];
  readonly #apps = new Set<number>();
  #offset = 0;
  #partial = "";

  constructor(private readonly logFile: string) {}

  /** The stopped app `appPid` has exited. */
  appExited(appPid: number): void {
    const death = this.#deaths.find((d) => d.appPid === appPid);
    if (death) death.exitedAt ??= Date.now();
  }

  /** An app process was started: agents whose parent it is are its own. */
  appStarted(appPid: number): void {
    this.#apps.add(appPid);
  }

  /** The app `appPid` died (or was told to stop) now; its agents must be gone within `limitMs`. */
  appDied(appPid: number, how: AppDeath["how"], limitMs: number): void {
    this.#deaths.push({ appPid, at: Date.now(), how, limitMs });
  }

  /** The app that spawned `agent`, stopped while (or before) the agent ran, if any. */
  #deathOf(agent: AgentProcess): AppDeath | undefined {
    return this.#deaths.find((d) => d.appPid === agent.appPid);
  }

  /** Reads new log lines, checks which agents are still alive, and flags lingering ones (and kills them). */
  poll(): void {
    this.#readLines();
    const now = Date.now();
    for (const agent of this.processes) {
      if (agent.diedAt !== undefined) continue;
      if (!isAlive(agent.pid)) {
        agent.diedAt = Math.min(now, agent.completedAt ?? agent.failedAt ?? now, agent.signalledAt !== undefined ? agent.signalledAt + 200 : now);
        continue;
      }
      const death = this.#deathOf(agent);
      // An agent spawned just before its app died counts from its own start.
      const since = death ? Math.max(death.at, agent.startedAt) : 0;
      if (death && now > since + death.limitMs) {
        this.violations.push(
          `lingering agent: pid ${agent.pid} (issue #${agent.issue}, round ${agent.round}) still alive ${((now - death.at) / 1000).toFixed(1)} s after its app was stopped with ${death.how}`,
        );
        killGroup(agent.pid);
        agent.diedAt = now;
      }
    }
  }

  /** An ask comment appeared by `at`: it was posted by the agent of `issue` started last before then. */
  askPosted(issue: number, at: number): void {
    const owner = this.processes.filter((p) => p.issue === issue && p.startedAt <= at).sort((a, b) => b.startedAt - a.startedAt)[0];
    if (owner) owner.askPostedAt = Math.min(owner.askPostedAt ?? Infinity, at);
  }

  alive(): AgentProcess[] {
    return this.processes.filter((p) => p.diedAt === undefined);
  }

  /** Whether the app that spawned this agent was stopped before the agent died (so its death is explained). */
  diedWithApp(agent: AgentProcess): boolean {
    const death = this.#deathOf(agent);
    return death !== undefined && death.at <= (agent.diedAt ?? Date.now()) + 50;
  }

  /**
   * A round that completed after its app died: the app cannot have recorded it, so it is run again
   * and does not count (the watchdog's SIGTERM normally ends such an agent first).
   */
  orphaned(agent: AgentProcess): boolean {
    const death = this.#deathOf(agent);
    return agent.completedAt !== undefined && death !== undefined && (death.how === "SIGKILL" ? death.at : (death.exitedAt ?? Infinity)) < agent.completedAt;
  }

  /** Rounds that ran to their end while their app lived. */
  completed(): AgentProcess[] {
    return this.processes.filter((p) => p.completedAt !== undefined && !this.orphaned(p));
  }

  /** Kills whatever is still running (end of run), without counting it as lingering. */
  killAll(): void {
    for (const agent of this.alive()) {
      killGroup(agent.pid);
      agent.diedAt = Date.now();
    }
  }

  #readLines(): void {
    let size: number;
    try {
      size = statSync(this.logFile).size;
    } catch {
      return;
    }
    if (size <= this.#offset) return;
    const fd = openSync(this.logFile, "r");
    const buffer = Buffer.alloc(size - this.#offset);
    try {
      readSync(fd, buffer, 0, buffer.length, this.#offset);
    } finally {
      closeSync(fd);
    }
    this.#offset = size;
    const text = this.#partial + buffer.toString("utf8");
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim()) this.#apply(JSON.parse(line) as AgentLine);
    }
  }

  #apply(line: AgentLine): void {
    if (line.event === "start") {
      // Its app died between spawning it and its first line (it was re-parented): the last app to die.
      const orphan = !this.#deaths.some((d) => d.appPid === line.ppid) && !this.#apps.has(line.ppid);
      const appPid = orphan ? ([...this.#deaths].reverse().find((d) => d.at <= line.at)?.appPid ?? line.ppid) : line.ppid;
      this.processes.push({
        pid: line.pid,
        appPid,
        issue: line.issue,
        round: line.round,
        startedAt: line.at,
        resumes: line.resumes,
        token: line.token,
        titled: line.titled ?? false,
      });
      return;
    }
    const agent = this.processes.find((p) => p.pid === line.pid && p.diedAt === undefined) ?? this.processes.findLast((p) => p.pid === line.pid);
    if (!agent) return;
    if (line.event === "end") agent.completedAt = line.at;
    if (line.event === "signal") agent.signalledAt = line.at;
    if (line.event === "failed") agent.failedAt = line.at;
    if (line.event === "asked") {
      agent.asked = line.url;
      agent.askedAt = line.at;
    }
  }
}

/** SIGKILL to the agent's process group (it leads one), falling back to the process alone. */
function killGroup(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
