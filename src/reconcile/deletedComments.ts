import type { StatusState } from "../protocol/statusComment.js";

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
  const gates = state.gates.map((gate) => {
    const lost = gate.answers.filter((a) => gone(a.url));
    if (lost.length === 0) return gate;
    const withdrawn = [...(gate.withdrawn ?? []), ...lost.map((a) => ({ by: a.by, at: now, questions: [a.question] }))];
    const answers = gate.answers.filter((a) => !gone(a.url));
    if (gate.state !== "answered") return { ...gate, answers, withdrawn };
    const { answeredBy: _by, answeredAt: _at, answerCommentId: _comment, ...open } = gate;
    return { ...open, state: "open", answers, withdrawn };
  });
  const notes = state.notes?.map((note) => (gone(note.url) ? { by: note.by, at: note.at, url: note.url, text: "", round: note.round, withdrawn: true as const } : note));
  return { ...state, gates, ...(notes ? { notes } : {}) };
}
