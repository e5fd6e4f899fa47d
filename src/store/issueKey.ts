import { keyIn } from "../redis/prefix.js";

export interface IssueKeyRef {
  repo: string; // owner/name
  issue: number;
}

/**
 * Hash: what we know of an issue (installation, title, body, open gate, rounds, status comment,
 * `statusRendered`, `feedbackSeq` (the write order's counter), `awaitingLabel`: "on"/"off"
 * as the app last put the label on or took it off, and, while the body GitHub shows was last
 * changed by someone other than its author, `bodyEditor` and `authorBody`: the author's own last
 * body, absent when unknown), and the round of each spawn job (IssueRoundKeys.spawnField).
 * Also the stem of every per-issue key, whichever aggregate owns it.
 */
export function issueKey(prefix: string, ref: IssueKeyRef): string {
  return keyIn(prefix, `issue:${ref.repo.toLowerCase()}#${ref.issue}`);
}
