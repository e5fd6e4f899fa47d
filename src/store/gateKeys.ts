import { keyIn } from "../redis/prefix.js";
import { issueKey, type IssueKeyRef } from "./issueKey.js";

/**
 * The gate records' key layout: the one place that names a gate's keys (its hash, votes, ladder
 * steps), the open gates, their repositories' index and each issue's gate list. GateRecords writes
 * them; IssueRounds' scripts read gates by these names, so both take them from here.
 */
export class GateKeys {
  constructor(readonly prefix: string) {}

  /** Hash: one gate (an ask comment awaiting, or having had, its answer). */
  gate(gateId: string): string {
    return `${this.gatePrefix()}${gateId}`;
  }
  /** What every gate key starts with, the id following: for a script that reads gates by id. */
  gatePrefix(): string {
    return keyIn(this.prefix, "gate:");
  }
  /** Set with TTL: the reminder-ladder steps already posted on the gate's issue (step numbers). */
  gateLadder(gateId: string): string {
    return keyIn(this.prefix, `ladder:${gateId}`);
  }
  /** Hash: an approval gate's votes, voter login (lower case) → vote JSON; one field per person, so each counts once. */
  gateVotes(gateId: string): string {
    return `${this.gate(gateId)}:votes`;
  }
  /** Sorted set of open gate ids, scored by ask time: the inbox. */
  openGates(): string {
    return keyIn(this.prefix, "gates:open");
  }
  /**
   * Hash: the repositories with open gates, '<installationId>:<repo as written>' → how many are open
   * there, and the field `built` once it counts every open gate (INDEX_OPEN_REPOS builds it, where a
   * Redis written before it existed, or wiped, has none); kept in the scripts that add a gate to the
   * open gates or take one out. What a scheduled reconciliation reads, in one command.
   */
  openGateRepos(): string {
    return keyIn(this.prefix, "gates:openRepos");
  }
  /** List: the issue's gate ids in ask order, the history folded into each spawn task. */
  issueGates(ref: IssueKeyRef): string {
    return `${issueKey(this.prefix, ref)}:gates`;
  }
}
