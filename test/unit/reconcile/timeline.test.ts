import { describe, expect, it } from "vitest";
import type { Ask } from "../../../src/domain.js";
import { validateAsk } from "../../../src/protocol/ask.js";
import { resumedOnTimeline, withTimeline, type LabelEvent, type TimelineComment } from "../../../src/reconcile/timeline.js";

const APP = "escalation[bot]";
const at = (s: number) => new Date(Date.parse("2025-01-01T12:00:00Z") + s * 1000).toISOString();
const comment = (id: number, second: number, login: string, body: string): TimelineComment => ({
  id,
  body,
  html_url: `https://x/${id}`,
  created_at: at(second),
  user: { login, type: login.endsWith("[bot]") ? "Bot" : "User" },
});
const ask = (round: number, questions = [{ text: "Which database?", options: ["Postgres", "SQLite"] }]): Ask =>
  validateAsk({ v: 1, id: `ask${round}abcdef`, round, questions });
const label = (event: "labeled" | "unlabeled", second: number, actor = APP): LabelEvent => ({
  event,
  label: { name: "awaiting-human" },
  actor: { login: actor },
  created_at: at(second),
});

function input(asks: Array<{ comment: TimelineComment; ask: Ask }>, replies: TimelineComment[], events: LabelEvent[]) {
  return {
    asks,
    comments: [...asks.map((a) => a.comment), ...replies].sort((a, b) => a.created_at.localeCompare(b.created_at)),
    events,
    appLogin: APP,
    awaitingLabel: "awaiting-human",
    isAnswerer: (c: TimelineComment) => c.user?.login === "maintainer",
  };
}

describe("resumedOnTimeline: what a happy round trip leaves on GitHub", () => {
  const first = { comment: comment(1, 0, APP, "ask"), ask: ask(0) };

  it("the newest ask, answered and then unlabelled by the app: resumed with the reply's answer", () => {
    const gates = resumedOnTimeline(input([first], [comment(2, 10, "maintainer", "SQLite, keep it small")], [label("labeled", 1), label("unlabeled", 20)]));
    expect(gates).toEqual([
      {
        id: "1",
        state: "resumed",
        round: 0,
        answeredBy: "maintainer",
        answeredAt: Date.parse(at(10)),
        answerCommentId: 2,
        answers: [
          {
            question: 0,
            text: "SQLite, keep it small",
            option: "SQLite",
            optionIndex: 1,
            note: "keep it small",
            by: "maintainer",
            at: Date.parse(at(10)),
            source: "human",
            url: "https://x/2",
          },
        ],
      },
    ]);
  });

  it("an answer on a line of a pull request's diff keeps its file and line, under its reply id", () => {
    const onLine: TimelineComment = { ...comment(-11, 10, "maintainer", "2"), in: { kind: "reviewComment", path: "src/db.ts", line: 4, side: "RIGHT" } };
    const [gate] = resumedOnTimeline(input([first], [onLine], [label("labeled", 1), label("unlabeled", 20)]));
    expect(gate).toMatchObject({ answerCommentId: -11, answers: [{ option: "SQLite", about: { path: "src/db.ts", line: 4, side: "RIGHT" } }] });
  });

  it("discussion and a bare 👍 before the answer are not answers; a reply to the app is read like any other", () => {
    const replies = [
      comment(2, 5, "maintainer", "@alice do we need this?"),
      comment(3, 6, "maintainer", "👍"),
      comment(4, 7, "maintainer", "/discuss later"),
      comment(5, 10, "maintainer", "@escalation 2"),
    ];
    const [gate] = resumedOnTimeline(input([first], replies, [label("labeled", 1), label("unlabeled", 20)]));
    expect(gate?.answerCommentId).toBe(5);
    expect(gate?.answers.map((a) => [a.option, a.text])).toEqual([["SQLite", "2"]]);
  });

  it("answers written in the second the next question was asked belong to the question before it (by comment id)", () => {
    // GitHub's timestamps have whole seconds: A, the second ask and B all carry second 10.
    const second = { comment: comment(3, 10, APP, "ask"), ask: ask(1) };
    const replies = [comment(2, 10, "maintainer", "SQLite, said A"), comment(4, 10, "maintainer", "Postgres, said B")];
    const gates = resumedOnTimeline(input([first, second], replies, [label("labeled", 1), label("unlabeled", 20)]));
    expect(gates.map((g) => [g.id, g.answerCommentId, g.answers[0]?.option])).toEqual([
      ["1", 2, "SQLite"],
      ["3", 4, "Postgres"],
    ]);
  });

  it("still labelled (the round has not ended, or died with its app): not resumed", () => {
    expect(resumedOnTimeline(input([first], [comment(2, 10, "maintainer", "SQLite")], [label("labeled", 1)]))).toEqual([]);
    expect(
      resumedOnTimeline(input([first], [comment(2, 10, "maintainer", "SQLite")], [label("labeled", 1), label("unlabeled", 20), label("labeled", 30)])),
    ).toEqual([]);
  });

  it("the label taken off by a person, or without any answer: not resumed", () => {
    expect(resumedOnTimeline(input([first], [comment(2, 10, "maintainer", "SQLite")], [label("labeled", 1), label("unlabeled", 20, "maintainer")]))).toEqual(
      [],
    );
    expect(resumedOnTimeline(input([first], [], [label("labeled", 1), label("unlabeled", 20)]))).toEqual([]);
    expect(resumedOnTimeline(input([first], [comment(2, 10, "stranger", "SQLite")], [label("labeled", 1), label("unlabeled", 20)]))).toEqual([]);
  });

  it("an older ask followed by one of a later round was resumed; by one of the same round, superseded", () => {
    const second = { comment: comment(3, 30, APP, "ask"), ask: ask(1) };
    const resumed = resumedOnTimeline(input([first, second], [comment(2, 10, "maintainer", "1")], [label("labeled", 1)]));
    expect(resumed.map((g) => [g.id, g.state, g.answers[0]?.option])).toEqual([["1", "resumed", "Postgres"]]);
    const again = { comment: comment(3, 30, APP, "ask"), ask: ask(0) };
    expect(resumedOnTimeline(input([first, again], [comment(2, 10, "maintainer", "1")], [label("labeled", 1)]))).toEqual([]);
  });

  it("several questions: replies merge by question until each has its answer", () => {
    const two = {
      comment: comment(1, 0, APP, "ask"),
      ask: validateAsk({
        v: 1,
        id: "twoqs123456",
        round: 0,
        questions: [
          { text: "Database?", options: ["Postgres", "SQLite"] },
          { text: "Expire?", default: "yes" },
        ],
      }),
    };
    const [gate] = resumedOnTimeline(
      input(
        [two],
        [comment(2, 10, "maintainer", "1. SQLite"), comment(4, 12, "maintainer", "/note unrelated"), comment(5, 14, "maintainer", "2. no")],
        [label("unlabeled", 20)],
      ),
    );
    expect(gate?.answers.map((a) => [a.question, a.text, a.source])).toEqual([
      [0, "SQLite", "human"],
      [1, "no", "human"],
    ]);
    expect(gate?.answerCommentId).toBe(5);
  });

  it("the label taken off under the app's name (maybe by the agent) after a partial answer: no default is inferred, the gate is not answered", () => {
    const two = {
      comment: comment(1, 0, APP, "ask"),
      ask: validateAsk({
        v: 1,
        id: "twoqs123456",
        round: 0,
        questions: [
          { text: "Database?", options: ["Postgres", "SQLite"] },
          { text: "Expire?", default: "yes" },
        ],
      }),
    };
    expect(resumedOnTimeline(input([two], [comment(2, 10, "maintainer", "1. SQLite")], [label("labeled", 1), label("unlabeled", 20)]))).toEqual([]);
    // Nor for an older ask followed by a later round's ask (also under the app's name).
    const later = { comment: comment(6, 30, APP, "ask"), ask: ask(1) };
    expect(resumedOnTimeline(input([two, later], [comment(2, 10, "maintainer", "1. SQLite")], [label("labeled", 1)]))).toEqual([]);
  });

  it("without the humans' answers, only the app's signed record of the gate as answered counts", () => {
    const events = [label("labeled", 1), label("unlabeled", 20)];
    expect(resumedOnTimeline({ ...input([first], [], events), recorded: () => false })).toEqual([]);
    expect(resumedOnTimeline({ ...input([first], [], events), recorded: (id) => id === "1" })).toEqual([{ id: "1", state: "resumed", round: 0, answers: [] }]);
  });
});

describe("withTimeline: the status comment's record, completed", () => {
  it("a settled record wins; an unsettled one becomes resumed and keeps its own answers; the round counter moves past", () => {
    const timeline = [{ id: "1", state: "resumed", round: 2, answers: [] }];
    const record = {
      v: 1 as const,
      nextRound: 1,
      gates: [{ id: "1", state: "resuming", round: 2, answers: [{ question: 0, text: "x", by: "m", at: 1, source: "human" as const }] }],
    };
    expect(withTimeline(record, timeline)).toMatchObject({ nextRound: 4, gates: [{ id: "1", state: "resumed", answers: [{ text: "x" }] }] });
    const cancelled = { ...record, gates: [{ ...record.gates[0]!, state: "cancelled" }] };
    expect(withTimeline(cancelled, timeline)?.gates[0]?.state).toBe("cancelled");
    expect(withTimeline(undefined, [])).toBeUndefined();
    expect(withTimeline(undefined, timeline)).toMatchObject({ v: 1, nextRound: 4, gates: timeline });
  });
});
