import { closeSync, openSync, readSync, writeFileSync } from "node:fs";

/** One line the trivial agent wrote: when its process began and when its first instruction ran (ms since the epoch). */
export interface AgentStart {
  repo: string;
  issue: number;
  round: number;
  processStart: number;
  firstInstruction: number;
  pid: number;
}

const key = (repo: string, issue: number) => `${repo.toLowerCase()}#${issue}`;

/** Tails the file every trivial agent appends its line to. */
export class AgentLog {
  readonly #starts = new Map<string, AgentStart[]>();
  #offset = 0;
  #rest = "";
  #count = 0;

  constructor(readonly path: string) {
    writeFileSync(path, "");
  }

  /** Reads what the agents appended since the last call. */
  poll(): void {
    const fd = openSync(this.path, "r");
    try {
      const buffer = Buffer.alloc(1 << 20);
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, this.#offset);
        if (read === 0) break;
        this.#offset += read;
        this.#rest += buffer.subarray(0, read).toString("utf8");
      }
    } finally {
      closeSync(fd);
    }
    const lines = this.#rest.split("\n");
    this.#rest = lines.pop() ?? "";
    for (const line of lines) {
      const [repo, issue, round, processStart, firstInstruction, pid] = line.trim().split(" ");
      if (!repo || !pid) continue;
      const start: AgentStart = {
        repo,
        issue: Number(issue),
        round: Number(round),
        processStart: Number(processStart),
        firstInstruction: Number(firstInstruction),
        pid: Number(pid),
      };
      const k = key(repo, start.issue);
      this.#starts.set(k, [...(this.#starts.get(k) ?? []), start]);
      this.#count++;
    }
  }

  /** Agent starts seen so far, all issues. */
  get count(): number {
    return this.#count;
  }

  first(repo: string, issue: number): AgentStart | undefined {
    return this.#starts.get(key(repo, issue))?.[0];
  }

  all(): AgentStart[] {
    return [...this.#starts.values()].flat();
  }
}
