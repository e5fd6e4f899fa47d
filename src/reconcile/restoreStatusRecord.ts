/**
 * What the status comment's signed record restores when Redis lost it: the round counter and
 * timings, the status comment's id, /note guidance. The app's own state counts only where its
 * signature verifies (README, "Signed state"); the rest is reported once and the issue rebuilt from
 * its questions and replies instead. Takes the whole Services bag for reportIgnoredState's sake.
 */
import type { InstallationOctokit } from "../github/octokit.js";
import type { MarkerSeal } from "../protocol/marker.js";
import type { Services } from "../services/services.js";
import type { StatusState } from "../status/statusComment.js";
import { mergeStatusRecords, statusRecords, type StatusRecord } from "../status/statusRecord.js";
import type { AskComment } from "./askComments.js";
import { withoutDeletedComments } from "./deletedComments.js";
import { installationGraphql } from "./editHistory.js";
import { ignoredState, reportIgnoredState } from "./ignoredState.js";
import { newestRenders } from "./newestRenders.js";
import type { ReplayBase } from "./replayedEvents.js";
import type { ReplySnapshot } from "./reviewReplies.js";

/** The issue's comments as a rebuild reads them: its asks, and whose comments carry the app's state. */
export interface IssueComments {
  comments: readonly ReplySnapshot[];
  asks: readonly AskComment[];
  isApp: (login: string) => boolean;
  isAgent: (login: string) => boolean;
  seal: MarkerSeal;
}

/** The record found, its state without comments GitHub no longer has, and what was restored. */
export interface RestoredRecord {
  record: StatusRecord | undefined;
  state: StatusState | undefined;
  changes: string[];
}

export async function restoreStatusRecord(services: Services, octokit: InstallationOctokit, base: ReplayBase, read: IssueComments): Promise<RestoredRecord> {
  const { comments, isApp, isAgent, seal } = read;
  const { installationId, repo } = base;
  const ref = { repo, issue: base.issue.number };
  const changes: string[] = [];
  const readings = statusRecords(comments, isApp, seal);
  // An older render put back in place of the newest is found in the comment's edit history, read
  // only when the record is what the rebuild goes on (Redis lost the issue or one of its gates).
  const newest = (await recordNeeded(services, ref, read.asks))
    ? await newestRenders(installationGraphql(services, installationId), readings.found, seal)
    : { found: readings.found, rolledBack: [] };
  const record = mergeStatusRecords(newest.found);
  const replayed = [...readings.replayed, ...newest.rolledBack].map((c) => ({
    id: c.id,
    url: c.html_url ?? base.issue.url,
    kind: "status" as const,
    why: "replayed" as const,
  }));
  if (replayed.length > 0)
    services.log.warn(
      { ...ref, comments: replayed.map((r) => r.id) },
      "status records the app signed but not for where, or not as late as, they stand: the app's newest is taken",
    );
  const ignored = [...ignoredState(comments, isAgent, seal), ...replayed].sort((a, b) => a.id - b.id);
  changes.push(...(await reportIgnoredState(services, { installationId, repo, issue: ref.issue }, comments, ignored, seal)));
  const present = new Set(comments.map((c) => c.id));
  const state = record && withoutDeletedComments(record.state, (id) => present.has(id), Date.now());
  if (record) {
    await services.rounds.restoreNextRound(ref, record.state.nextRound);
    await services.statusLog.restoreStatusCommentId(ref, record.commentId);
  }
  if (record?.state.rounds?.length) await services.rounds.restoreRoundTimings(ref, record.state.rounds);
  // /note guidance Redis lost comes back from the status comment, with its audit hash.
  if (state?.notes?.length && (await services.notes.notes(ref)).length === 0) {
    for (const note of state.notes) await services.notes.addNote(ref, note);
    changes.push(`${repo}#${ref.issue}: restored ${state.notes.length} note(s) from the status comment`);
  }
  return { record, state, changes };
}

/** Whether Redis lacks what the status record restores: the issue's status comment, or the gate of an ask. */
async function recordNeeded(services: Pick<Services, "gates" | "issues">, ref: { repo: string; issue: number }, asks: readonly AskComment[]): Promise<boolean> {
  if (!(await services.issues.getIssue(ref))?.statusCommentId) return true;
  for (const { comment } of asks) if (!(await services.gates.getGate(String(comment.id)))) return true;
  return false;
}
