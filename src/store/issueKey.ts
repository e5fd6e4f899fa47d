import { keyIn } from "../redis/prefix.js";

export interface IssueKeyRef {
  repo: string; // owner/name
  issue: number;
}

/**
 * Hash: what we know of an issue, shared by field between the aggregates that own them:
 * IssueRecords the record itself (installation, title, body, assignees, state, author, who last
 * changed the body or title, `awaitingLabel`: "on"/"off"/"leaving" as the app last put the label
 * on or took it off); GateRecords `openGate`; IssueRounds `nextRound`, `roundLimit` and the round of
 * each spawn job still to run (IssueRounds.spawnField); StatusLog `statusCommentId`, `statusRendered`,
 * `statusSeq`.
 * Also the stem of every per-issue key, whichever aggregate owns it.
 */
export function issueKey(prefix: string, ref: IssueKeyRef): string {
  return keyIn(prefix, `issue:${ref.repo.toLowerCase()}#${ref.issue}`);
}
