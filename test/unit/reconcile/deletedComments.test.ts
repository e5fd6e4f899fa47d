import { describe, expect, it } from "vitest";
import type { Gate, RecordedAnswer } from "../../../src/domain.js";
import type { StatusState } from "../../../src/status/statusComment.js";
import { goneReplies, issueCommentIdOf, withoutDeletedComments } from "../../../src/reconcile/deletedComments.js";
import { gateFixture } from "../../support/gates.js";

const url = (id: number) => `https://github.com/octo/demo/issues/7#issuecomment-${id}`;
const answer = (question: number, commentId: number, text: string) => ({ question, text, by: "alice", at: 10, source: "human" as const, url: url(commentId) });

describe("withoutDeletedComments: a rebuild does not bring back what GitHub no longer shows", () => {
  const state: StatusState = {
    v: 1,
    nextRound: 3,
    gates: [
      { id: "100", state: "resumed", round: 0, answeredBy: "alice", answerCommentId: 101, answers: [answer(0, 101, "password hunter2")] },
      { id: "200", state: "answered", round: 1, answeredBy: "bob", answerCommentId: 202, answers: [answer(0, 201, "secret"), answer(1, 202, "yes")] },
      { id: "300", state: "resumed", round: 2, answers: [{ question: 0, text: "SQLite", by: "escalation", at: 10, source: "default" }] },
    ],
    notes: [
      { by: "alice", at: 1, url: url(401), text: "token hunter2", round: 0 },
      { by: "bob", at: 2, url: url(402), text: "keep the API", round: 0 },
    ],
  };
  const present = new Set([100, 200, 202, 300, 402]);
  const rebuilt = withoutDeletedComments(state, (id) => present.has(id), 99);

  it("drops a deleted answer's text and records it as withdrawn", () => {
    expect(rebuilt.gates[0]).toMatchObject({ state: "resumed", answers: [], withdrawn: [{ by: "alice", at: 99, questions: [0] }] });
    expect(JSON.stringify(rebuilt)).not.toContain("hunter2");
    expect(JSON.stringify(rebuilt)).not.toContain("secret");
  });

  it("an answered gate that lost an answer is open again, keeping the answers that stand", () => {
    expect(rebuilt.gates[1]).toEqual({
      id: "200",
      state: "open",
      round: 1,
      answers: [answer(1, 202, "yes")],
      withdrawn: [{ by: "alice", at: 99, questions: [0] }],
    });
  });

  it("keeps answers with no issue comment behind them (defaults) and gates that lost nothing, as they were", () => {
    expect(rebuilt.gates[2]).toBe(state.gates[2]);
  });

  it("keeps an approval's outcome whose deciding vote was deleted", () => {
    const approval = { outcome: "approved" as const, required: 1, policy: "majority" as const, votes: [] };
    const decided: StatusState = {
      v: 1,
      nextRound: 1,
      gates: [{ id: "500", state: "resumed", round: 0, answers: [{ ...answer(0, 501, "approved"), approval }] }],
    };
    expect(withoutDeletedComments(decided, () => false, 99)).toEqual(decided);
  });

  it("keeps an answer and a note whose comment someone other than its author deleted (deletedBy)", () => {
    const kept: StatusState = {
      v: 1,
      nextRound: 1,
      gates: [
        {
          id: "600",
          state: "answered",
          round: 0,
          answeredBy: "alice",
          answerCommentId: 601,
          answers: [{ ...answer(0, 601, "Postgres"), deletedBy: "escalation[bot]" }],
        },
      ],
      notes: [{ by: "alice", at: 1, url: url(602), text: "keep the API", round: 0, deletedBy: "escalation[bot]" }],
    };
    expect(withoutDeletedComments(kept, () => false, 99)).toEqual(kept);
  });

  it("a deleted note is a withdrawn note without text or hash", () => {
    expect(rebuilt.notes).toEqual([
      { by: "alice", at: 1, url: url(401), text: "", round: 0, withdrawn: true },
      { by: "bob", at: 2, url: url(402), text: "keep the API", round: 0 },
    ]);
  });

  it("reads the comment id of an issue comment's URL, and nothing else", () => {
    expect(issueCommentIdOf(url(123))).toBe(123);
    expect(issueCommentIdOf("https://github.com/octo/demo/pull/7#discussion_r55")).toBeUndefined();
    expect(issueCommentIdOf(undefined)).toBeUndefined();
  });
});

describe("goneReplies: answers and notes in Redis whose comment GitHub no longer lists", () => {
  const reply = (commentId: number, over: Partial<RecordedAnswer> = {}): RecordedAnswer => ({
    question: 0,
    text: "x",
    by: "alice",
    at: 1,
    source: "human",
    commentId,
    url: url(commentId),
    ...over,
  });
  const gates: Gate[] = [
    gateFixture({ id: "100", state: "resumed", answers: [reply(101)] }),
    gateFixture({ id: "200", state: "answered", answers: [reply(201, { by: "bob" })] }),
    // An answer given in a pull request review: not an issue comment, never in the issue's list.
    gateFixture({ id: "300", state: "resumed", answers: [reply(301, { url: "https://github.com/octo/demo/pull/7#discussion_r301" })] }),
    gateFixture({ id: "400", state: "resumed", answers: [reply(999)] }),
  ];
  const notes = [
    { by: "carol", at: 1, url: url(150), text: "n", round: 0 },
    { by: "dave", at: 2, url: url(160), text: "", round: 0, withdrawn: true },
  ];

  it("finds deleted answers and notes, and nothing given in a review, already withdrawn, or newer than the listing", () => {
    expect(goneReplies(gates, notes, [100, 200, 300, 400, 500])).toEqual([
      { id: 101, by: "alice", url: url(101) },
      { id: 201, by: "bob", url: url(201) },
      { id: 150, by: "carol", url: url(150) },
    ]);
  });

  it("leaves out an answer or note whose comment someone other than its author deleted: it stands", () => {
    const kept = [gateFixture({ id: "700", state: "resumed", answers: [reply(701, { deletedBy: "escalation[bot]" })] })];
    expect(goneReplies(kept, [{ by: "carol", at: 1, url: url(702), text: "n", round: 0, deletedBy: "escalation[bot]" }], [700, 800])).toEqual([]);
  });

  it("finds nothing when every comment is listed", () => {
    expect(goneReplies(gates, notes, [100, 101, 150, 200, 201, 300, 400, 500, 999])).toEqual([]);
  });
});
