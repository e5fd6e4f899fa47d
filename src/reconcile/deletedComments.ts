import { APPROVAL_KIND, type Gate, type HumanNote } from "../domain.js";
import type { StatusState } from "../status/statusComment.js";

/** The issue comment an answer's or note's URL points at (GitHub's html_url ends in `#issuecomment-<id>`). */
export function issueCommentIdOf(url: string | undefined): number | undefined {
  const id = /#issuecomment-(\d+)$/.exec(url ?? "")?.[1];
  return id === undefined ? undefined : Number(id);
}

/**
 * The status comment's record without the text of comments GitHub no longer has: a status comment
 * rendered before an answer or note was deleted still quotes it, and a rebuild must not bring it
 * back. Such an answer is recorded as withdrawn (no text), such a note as a withdrawn note; an
 * answered gate that lost an answer is open again, as it would be had Redis seen the deletion.
 */
export function withoutDeletedComments(state: StatusState, exists: (commentId: number) => boolean, now: number): StatusState {
  const gone = (url: string | undefined) => {
    const id = issueCommentIdOf(url);
    return id !== undefined && !exists(id);
  };
  // An approval's outcome stands when a vote is deleted (README, "Approvals"); so does an answer
  // whose comment someone other than its author deleted.
  const withdrawable = (a: StatusState["gates"][number]["answers"][number]) => a.approval === undefined && a.deletedBy === undefined && gone(a.url);
  const gates = state.gates.map((gate) => {
    const lost = gate.answers.filter(withdrawable);
    if (lost.length === 0) return gate;
    const withdrawn = [...(gate.withdrawn ?? []), ...lost.map((a) => ({ by: a.by, at: now, questions: [a.question] }))];
    const answers = gate.answers.filter((a) => !withdrawable(a));
    if (gate.state !== "answered") return { ...gate, answers, withdrawn };
    const { answeredBy: _by, answeredAt: _at, answerCommentId: _comment, ...open } = gate;
    return { ...open, state: "open", answers, withdrawn };
  });
  const notes = state.notes?.map((note) =>
    gone(note.url) && note.deletedBy === undefined ? { by: note.by, at: note.at, url: note.url, text: "", round: note.round, withdrawn: true as const } : note,
  );
  return { ...state, gates, ...(notes ? { notes } : {}) };
}

/** A reply Redis still holds whose comment GitHub no longer has. */
export interface GoneReply {
  id: number;
  by: string;
  url: string;
}

/**
 * The answers and notes in Redis whose issue comment is gone from GitHub: deleted while the app
 * was down or its webhook was lost. Only comments older than the newest one listed count: a reply
 * posted after the listing was read has a higher id and is not gone, merely new.
 */
export function goneReplies(gates: readonly Gate[], notes: readonly HumanNote[], listedIds: readonly number[]): GoneReply[] {
  const listed = new Set(listedIds);
  const newest = Math.max(0, ...listedIds);
  const gone = new Map<number, GoneReply>();
  const consider = (url: string | undefined, by: string) => {
    const id = issueCommentIdOf(url);
    if (id !== undefined && id < newest && !listed.has(id) && !gone.has(id)) gone.set(id, { id, by, url: url! });
  };
  // A vote stays counted when deleted (README, "Approvals"): an approval's outcome is never gone.
  for (const gate of gates.filter((g) => g.ask.kind !== APPROVAL_KIND)) {
    for (const answer of gate.answers) if (answer.deletedBy === undefined && answer.commentId === issueCommentIdOf(answer.url)) consider(answer.url, answer.by);
  }
  for (const note of notes) if (!note.withdrawn && note.deletedBy === undefined) consider(note.url, note.by);
  return [...gone.values()];
}
