import { describe, expect, it } from "vitest";
import { validateAsk } from "../../../src/protocol/ask.js";
import { settledGate } from "../../../src/reconcile/settledGate.js";

const ask = validateAsk({ v: 1, id: "ask0abcdef", round: 0, questions: [{ text: "Which database?", options: ["Postgres", "SQLite"] }] });
const askComment = {
  id: 100,
  body: "ask",
  html_url: "https://github.com/acme/widgets/issues/7#issuecomment-100",
  created_at: "2025-01-01T12:00:00Z",
  user: { login: "escalation[bot]", type: "Bot" },
};

describe("settledGate: a lost gate rebuilt from its ask and the status record", () => {
  it("takes the ask's time, author and URL, and each answer's comment id from its URL", () => {
    const answer = { question: 0, text: "SQLite", by: "alice", at: 5, source: "human" as const };
    const gate = settledGate(
      {
        id: "100",
        state: "resumed",
        round: 2,
        answers: [
          { ...answer, url: "https://github.com/acme/widgets/issues/7#issuecomment-101" },
          { ...answer, question: 1, url: "https://github.com/acme/widgets/pull/7#pullrequestreview-9" },
        ],
        answeredBy: "alice",
        answeredAt: 5,
        answerCommentId: 101,
      },
      askComment,
      ask,
      3,
      "acme/widgets",
      7,
    );
    expect(gate).toEqual({
      id: "100",
      repo: "acme/widgets",
      issue: 7,
      installationId: 3,
      round: 2,
      ask,
      askedAt: Date.parse("2025-01-01T12:00:00Z"),
      askedBy: "escalation[bot]",
      askUrl: askComment.html_url,
      state: "resumed",
      answers: [
        { ...answer, url: "https://github.com/acme/widgets/issues/7#issuecomment-101", commentId: 101 },
        { ...answer, question: 1, url: "https://github.com/acme/widgets/pull/7#pullrequestreview-9" },
      ],
      answeredBy: "alice",
      answeredAt: 5,
      answerCommentId: 101,
    });
  });

  it("a reason and withdrawals only when the record has them", () => {
    const withdrawn = [{ by: "bob", at: 9, questions: [0] }];
    const known = { id: "100", state: "cancelled", round: 0, answers: [] };
    expect(settledGate({ ...known, reason: "cancelled by @bob", withdrawn }, askComment, ask, 3, "acme/widgets", 7)).toMatchObject({
      closedReason: "cancelled by @bob",
      withdrawn,
    });
    const bare = settledGate({ ...known, withdrawn: [] }, { ...askComment, user: null }, ask, 3, "acme/widgets", 7);
    expect(bare).not.toHaveProperty("closedReason");
    expect(bare).not.toHaveProperty("withdrawn");
    expect(bare.askedBy).toBe("");
  });
});
