/**
 * The Redis key layout. Every key the app writes is built here and nowhere else.
 * All keys share one prefix (REDIS_PREFIX), the same one BullMQ uses for its queues, so one
 * installation of the app owns one namespace and a test can use a fresh one.
 */
export interface IssueKeyRef {
  repo: string; // owner/name
  issue: number;
}

export class Keys {
  constructor(readonly prefix: string) {}

  /** Hash: one gate (an ask comment awaiting, or having had, its answer). */
  gate(gateId: string): string {
    return `${this.prefix}:gate:${gateId}`;
  }
  /** Sorted set of open gate ids, scored by ask time: the inbox. */
  openGates(): string {
    return `${this.prefix}:gates:open`;
  }
  /** Hash: what we know of an issue (installation, title, body, open gate, rounds, status comment). */
  issue(ref: IssueKeyRef): string {
    return `${this.prefix}:issue:${ref.repo.toLowerCase()}#${ref.issue}`;
  }
  /** List: the issue's gate ids in ask order, the history folded into each spawn task. */
  issueGates(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:gates`;
  }
  /** Hash: spawn job id → round, so a retried job keeps its round number. */
  issueSpawns(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:spawns`;
  }
  /**
   * Set: spawn job ids whose round ran to its end. A job re-run after its worker died between the
   * agent's exit and BullMQ recording the completion finds itself here and does not run again.
   */
  issueRoundsDone(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:done`;
  }
  /** List: the lines of the issue's status comment, oldest first. */
  issueStatusLog(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:status`;
  }
  /** List: notes humans left with /note, folded into the next spawn task. */
  issueNotes(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:notes`;
  }
  /** String with TTL: marks a one-time reply (help text, config warning) as already sent. */
  once(what: string): string {
    return `${this.prefix}:once:${what}`;
  }
  /** Pub/sub channel: /stop and issue-close requests to whichever process runs that issue's agent. */
  controlChannel(): string {
    return `${this.prefix}:control`;
  }
  /** String with TTL: the Slack message ({channel, ts}) mirroring a gate, for chat.update. */
  slackMessage(gateId: string): string {
    return `${this.prefix}:mirror:slack:${gateId}`;
  }
  /** String: when reconciliation last finished (ms), so the next one scans issues updated since. */
  lastReconcile(): string {
    return `${this.prefix}:reconcile:last`;
  }
  /** String with TTL: a user's cached permission on a repository. */
  permission(repo: string, login: string): string {
    return `${this.prefix}:perm:${repo.toLowerCase()}:${login.toLowerCase()}`;
  }
}
