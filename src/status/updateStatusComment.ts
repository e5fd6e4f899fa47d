import { foldedSha256 } from "../agent/renderTask.js";
import { ANSWER_CHARS, MAX_NOTES, MAX_ROUNDS_SHOWN, renderStatusComment, type StatusState } from "./statusComment.js";
import { sealOf } from "../protocol/marker.js";
import type { Services } from "../services/services.js";
import type { Gate, HumanNote, IssueRecord, RoundTiming } from "../domain.js";
import type { InstallationOctokit } from "../github/octokit.js";
import type { BudgetedWriter } from "./budgetedWriter.js";
import { issueOf, type WriteTarget } from "./writeTarget.js";

/** What the status comment is built from (the store's records of the issue) and the key its record is sealed with. */
export type StatusCommentPorts = Pick<Services, "config" | "gates" | "issues" | "notes" | "rounds" | "statusLog">;

/**
 * Edits the issue's one status comment (creating it the first time) from the store's records: the
 * status log's lines and the state a rebuild reads back (gates, notes, round timings), cut to what
 * the comment keeps. Skips when a newer render happened. Returns the writes it sent.
 */
export async function updateStatusComment(
  services: StatusCommentPorts,
  octokit: InstallationOctokit,
  t: WriteTarget,
  seq: number,
  writer: BudgetedWriter,
): Promise<number> {
  const ref = issueOf(t);
  // From here on, a new line schedules the next render; this one shows every line appended so far,
  // and is skipped only when a render since has shown them all (not merely line `seq`).
  await services.statusLog.clearStatusPending(ref);
  const [lines, gates, issue, notes, rendered, rounds] = await Promise.all([
    services.statusLog.statusLines(ref),
    services.gates.issueGates(ref),
    services.issues.getIssue(ref),
    services.notes.notes(ref),
    services.statusLog.statusRendered(ref),
    services.rounds.roundTimings(ref),
  ]);
  if (rendered >= Math.max(seq, lines.length)) return writer.coalesced();
  const state = statusState(issue, gates, notes, rounds);
  const seal = sealOf(services.config.stateKey, ref);
  // The record names the comment it is written into and its place among the renders, so a rebuild
  // takes neither a copy of it elsewhere nor an older render put back (src/status/statusRecord.ts).
  const bound = async (comment: number) =>
    renderStatusComment(lines, { ...state, comment, seq: await services.statusLog.nextStatusSeq(ref, Date.now()) }, seal);
  let commentId = issue?.statusCommentId;
  let written = 1;
  if (commentId) {
    const body = await bound(commentId);
    try {
      await writer.send(() =>
        octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner: t.owner, repo: t.repo, comment_id: commentId!, body }),
      );
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
      commentId = undefined; // someone deleted it: post a new one
    }
  }
  if (!commentId) {
    // Its id is known only once posted: posted without the record, then edited to hold it.
    const { data } = await writer.send(() =>
      octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner: t.owner,
        repo: t.repo,
        issue_number: t.issue,
        body: renderStatusComment(lines, state, undefined),
      }),
    );
    const id = Number(data.id);
    await services.statusLog.setStatusCommentId(ref, id);
    const body = await bound(id);
    await writer.send(() =>
      octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner: t.owner, repo: t.repo, comment_id: id, body }),
    );
    written = 2;
  }
  await services.statusLog.setStatusRendered(ref, lines.length);
  return written;
}

/** The state the status comment records for a rebuild: the last 50 gates, notes and round timings, long texts cut (their digests kept whole). */
function statusState(issue: IssueRecord | undefined, gates: Gate[], notes: HumanNote[], rounds: RoundTiming[]): StatusState {
  return {
    v: 1,
    nextRound: issue?.nextRound ?? 0,
    gates: gates.slice(-50).map((g) => ({
      id: g.id,
      state: g.state,
      round: g.round,
      answeredBy: g.answeredBy,
      answeredAt: g.answeredAt,
      answerCommentId: g.answerCommentId,
      ...(g.closedReason && (g.state === "superseded" || g.state === "cancelled") ? { reason: g.closedReason.slice(0, 200) } : {}),
      answers: g.answers.map((a) => ({
        question: a.question,
        text: a.text.slice(0, ANSWER_CHARS),
        option: a.option,
        optionIndex: a.optionIndex,
        note: a.note?.slice(0, ANSWER_CHARS),
        by: a.by,
        at: a.at,
        source: a.source,
        url: a.url,
        ...(a.about ? { about: a.about } : {}),
        ...(a.deletedBy ? { deletedBy: a.deletedBy } : {}),
        // The audit record of the whole text as folded, also when the text above is cut.
        sha256: a.sha256 ?? foldedSha256(a.text),
        ...(a.approval
          ? {
              approval: {
                ...a.approval,
                votes: a.approval.votes.slice(0, 50).map((v) => ({ ...v, ...(v.note ? { note: v.note.slice(0, ANSWER_CHARS) } : {}) })),
              },
            }
          : {}),
      })),
      ...(g.withdrawn?.length ? { withdrawn: g.withdrawn.slice(-20) } : {}),
    })),
    ...(notes.length > 0
      ? {
          notes: notes.slice(-MAX_NOTES).map(shownNote),
        }
      : {}),
    ...(rounds.length > 0 ? { rounds: rounds.slice(-MAX_ROUNDS_SHOWN) } : {}),
  };
}

/** A note as the status record keeps it: a withdrawn note keeps no text, a long one is cut, its digest kept whole. */
function shownNote(n: HumanNote): NonNullable<StatusState["notes"]>[number] {
  if (n.withdrawn) return { by: n.by, at: n.at, url: n.url, text: "", round: n.round, withdrawn: true as const };
  return {
    by: n.by,
    at: n.at,
    url: n.url,
    text: n.text.slice(0, ANSWER_CHARS),
    round: n.round,
    sha256: n.sha256 ?? foldedSha256(n.text),
    ...(n.deletedBy ? { deletedBy: n.deletedBy } : {}),
  };
}
