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
    return `${this.gatePrefix()}${gateId}`;
  }

  /** What every gate key starts with, the id following: for a script that reads gates by id. */
  gatePrefix(): string {
    return `${this.prefix}:gate:`;
  }
  /** Set with TTL: the reminder-ladder steps already posted on the gate's issue (step numbers). */
  gateLadder(gateId: string): string {
    return `${this.prefix}:ladder:${gateId}`;
  }
  /** Hash: an approval gate's votes, voter login (lower case) → vote JSON; one field per person, so each counts once. */
  gateVotes(gateId: string): string {
    return `${this.prefix}:gate:${gateId}:votes`;
  }
  /** Sorted set of open gate ids, scored by ask time: the inbox. */
  openGates(): string {
    return `${this.prefix}:gates:open`;
  }
  /**
   * Hash: what we know of an issue (installation, title, body, open gate, rounds, status comment,
   * `statusRendered`, `feedbackSeq` (the write order's counter), `awaitingLabel`: "on"/"off"
   * as the app last put the label on or took it off, and, while the body GitHub shows was last
   * changed by someone other than its author, `bodyEditor` and `authorBody`: the author's own last
   * body, absent when unknown), and the round of each spawn job (issueSpawnField).
   */
  issue(ref: IssueKeyRef): string {
    return `${this.prefix}:issue:${ref.repo.toLowerCase()}#${ref.issue}`;
  }
  /** List: the issue's gate ids in ask order, the history folded into each spawn task. */
  issueGates(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:gates`;
  }
  /**
   * Hash: spawn job id → round, as written before the round of a job moved into the issue's hash
   * (issueSpawnField); still read, so a job allocated before an upgrade keeps its round.
   */
  issueSpawns(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:spawns`;
  }
  /**
   * Field of the issue's hash: the round of spawn job `jobId`, so a retried job keeps its round
   * number. In the issue's hash rather than a hash of its own: one key less per issue (a parked
   * gate's Redis, tools/bench/README.md).
   */
  issueSpawnField(jobId: string): string {
    return `spawn:${jobId}`;
  }
  /**
   * Set: spawn job ids whose round ran to its end. A job re-run after its worker died between the
   * agent's exit and BullMQ recording the completion finds itself here and does not run again.
   */
  issueRoundsDone(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:done`;
  }
  /** Hash: round → JSON RoundTiming (human wait and agent run time), for the status comment. */
  issueRoundTimes(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:roundTimes`;
  }
  /** List: the lines of the issue's status comment, oldest first. */
  issueStatusLog(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:status`;
  }
  /** List: notes humans left with /note, folded into the next spawn task. */
  issueNotes(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:notes`;
  }
  /**
   * String with TTL: the comment was deleted. A webhook of its creation processed after the deletion
   * (GitHub does not promise order) then records nothing from it.
   */
  deletedComment(repo: string, commentId: number): string {
    return `${this.prefix}:deleted:${repo.toLowerCase()}:${commentId}`;
  }
  /** Set with TTL: the app's comments that quote the words of reply `commentId` (its echo), to redact them if it is withdrawn or edited. */
  issueEchoes(ref: IssueKeyRef, commentId: number): string {
    return `${this.issue(ref)}:echoes:${commentId}`;
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
  /**
   * String: when the app first wrote this namespace (ms). Created since this process started means
   * Redis was wiped under it: a round may still run on a live worker that has not noticed yet.
   */
  epoch(): string {
    return `${this.prefix}:epoch`;
  }
  /** String: when reconciliation last finished (ms), so the next one scans issues updated since. */
  lastReconcile(): string {
    return `${this.prefix}:reconcile:last`;
  }
  /** String: when the last full reconciliation (every repository read) finished (ms). */
  lastFullReconcile(): string {
    return `${this.prefix}:reconcile:lastFull`;
  }
  /** Sorted set: the issue's feedback jobs not yet done (score: enqueue order), so they write in that order. */
  issueFeedbackOrder(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:feedback`;
  }
  /** Hash: feedback job id → ms until which that job was put off (its followers wait until after it). */
  issueFeedbackDue(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:feedbackDue`;
  }
  /** String with TTL: a status render of the issue is scheduled; lines added meanwhile ride along with it. */
  issueStatusPending(ref: IssueKeyRef): string {
    return `${this.issue(ref)}:statusPending`;
  }
  /** Sorted set: the installation's recent GitHub content writes (score: ms), the write budget's sliding windows. */
  githubWrites(installationId: number): string {
    return `${this.prefix}:github:writes:${installationId}`;
  }
  /** String with TTL: when the last write put off for the installation's budget was told to come back (ms), to space the next. */
  githubWriteNextWake(installationId: number): string {
    return `${this.prefix}:github:wake:${installationId}`;
  }
  /** Sorted set: installation id → ms until which GitHub told the app to stop writing (secondary limit). */
  githubWritePauses(): string {
    return `${this.prefix}:github:paused`;
  }
  /** String with TTL: consecutive secondary-limit responses of an installation, for the backoff. */
  githubWriteStrikes(installationId: number): string {
    return `${this.prefix}:github:strikes:${installationId}`;
  }
  /** String with TTL: whether a user is an active member of a team (org/team-slug), as GitHub last said. */
  teamMember(team: string, login: string): string {
    return `${this.prefix}:team:${team.toLowerCase()}:${login.toLowerCase()}`;
  }
  /** String with TTL: a user's cached permission on a repository. */
  permission(repo: string, login: string): string {
    return `${this.prefix}:perm:${repo.toLowerCase()}:${login.toLowerCase()}`;
  }
}
