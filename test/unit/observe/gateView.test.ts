import { describe, expect, it } from "vitest";
import { countGates, viewGate } from "../../../src/observe/gateView.js";
import { gateFixture } from "../../support/gates.js";

const T0 = Date.parse("2025-01-01T12:00:00Z");

describe("viewGate", () => {
  it("shows the questions with options, defaults, age and the ask's timeout as deadline", () => {
    const gate = gateFixture({ ask: { timeoutSeconds: 1800, context: "Migrating the cache." } });
    const view = viewGate(gate, T0 + 300_000, "Add a cache");
    expect(view).toEqual({
      id: "4711",
      repo: "acme/widgets",
      issue: 12,
      title: "Add a cache",
      kind: "question",
      round: 0,
      state: "open",
      askedBy: "escalation[bot]",
      askedAt: "2025-01-01T12:00:00.000Z",
      ageSeconds: 300,
      context: "Migrating the cache.",
      questions: [
        {
          number: 1,
          text: "Which database should the cache use?",
          options: ["Postgres", "SQLite"],
          default: "SQLite",
          timeoutSeconds: 1800,
          deadline: "2025-01-01T12:30:00.000Z",
          answer: null,
        },
      ],
      deadline: "2025-01-01T12:30:00.000Z",
      timeLeftSeconds: 1500,
      overdueSince: null,
      url: "https://github.com/acme/widgets/issues/12#issuecomment-4711",
      issueUrl: "https://github.com/acme/widgets/issues/12",
      paths: [],
      // A gate recorded before who may answer was: the repository's rule of the day.
      answerers: [{ kind: "permission", name: "allowed", via: "permission" }],
      approval: null,
    });
  });

  it("shows an approval gate's tally from its recorded rule: who approved, how many more, and who can still give them", () => {
    const gate = gateFixture({
      ask: { kind: "approval", approvers: 2, questions: [{ text: "Deploy?" }], paths: ["deploy/"] },
      approvalRule: { required: 3, policy: "majority" },
      answerers: { users: ["carol"], teams: [], codeOwners: { users: ["alice", "bob"], teams: ["acme/ops"], paths: ["deploy/"], file: ".github/CODEOWNERS" } },
    });
    const votes = [
      { login: "Alice", vote: "approve" as const, at: T0 + 1000, commentId: 1 },
      { login: "bob", vote: "deny" as const, at: T0 + 2000, commentId: 2, note: "not today" },
      { login: "bob", vote: "approve" as const, at: T0 + 500, commentId: 3 },
    ];
    const view = viewGate(gate, T0 + 60_000, undefined, [], votes);
    expect(view.paths).toEqual(["deploy/"]);
    expect(view.approval).toEqual({
      required: 3,
      policy: "majority",
      recorded: true,
      approvals: [{ login: "Alice", at: "2025-01-01T12:00:01.000Z", note: null }],
      denials: [{ login: "bob", at: "2025-01-01T12:00:02.000Z", note: "not today" }],
      waitingFor: [
        { kind: "team", name: "acme/ops", via: "code owner" },
        { kind: "user", name: "carol", via: "configured" },
      ],
      summary: "1 of 3 approvals: @Alice; 1 of 3 denials: @bob; waiting for 2 more from @acme/ops (code owner) · @carol (configured)",
    });
  });

  it("falls back to the ask's count on an approval gate opened before its rule was recorded", () => {
    const gate = gateFixture({ ask: { kind: "approval", questions: [{ text: "Deploy?" }] } });
    expect(viewGate(gate, T0, undefined, [], []).approval).toMatchObject({
      required: 1,
      recorded: false,
      summary: "0 of at least 1 approval: none yet; waiting for 1 more from anyone allowed on the repository",
    });
  });

  it("takes the earliest deadline among unanswered questions; a question's own timeout wins over the ask's", () => {
    const gate = gateFixture({
      ask: {
        timeoutSeconds: 7200,
        questions: [{ text: "A?", timeoutSeconds: 600 }, { text: "B?" }, { text: "C?", timeoutSeconds: 3600 }],
      },
    });
    const view = viewGate(gate, T0 + 60_000);
    expect(view.questions.map((q) => q.timeoutSeconds)).toEqual([600, 7200, 3600]);
    expect(view.deadline).toBe("2025-01-01T12:10:00.000Z");
    expect(view.timeLeftSeconds).toBe(540);
    // Once question A is answered, its deadline no longer counts.
    const partial = viewGate({ ...gate, answers: [{ question: 0, text: "yes", by: "maintainer", at: T0 + 1000, source: "human" }] }, T0 + 60_000);
    expect(partial.deadline).toBe("2025-01-01T13:00:00.000Z");
    expect(partial.questions[0]!.answer).toEqual({ text: "yes", option: null, by: "maintainer" });
  });

  it("has no deadline without timeouts and a negative time left once overdue", () => {
    expect(viewGate(gateFixture(), T0 + 5000)).toMatchObject({ deadline: null, timeLeftSeconds: null, title: null });
    expect(viewGate(gateFixture({ ask: { timeoutSeconds: 60 } }), T0 + 90_000)).toMatchObject({ timeLeftSeconds: -30 });
  });
});

describe("countGates", () => {
  it("counts open gates by waiting, overdue, without timeout and partly answered", () => {
    const now = T0 + 120_000;
    const views = [
      viewGate(gateFixture({ id: "1" }), now),
      viewGate(gateFixture({ id: "2", ask: { timeoutSeconds: 60 } }), now),
      viewGate(gateFixture({ id: "3", ask: { timeoutSeconds: 600 } }), now),
      viewGate(
        gateFixture({
          id: "4",
          ask: { questions: [{ text: "A?" }, { text: "B?" }] },
          answers: [{ question: 1, text: "b", by: "x", at: T0, source: "human" }],
        }),
        now,
      ),
    ];
    expect(countGates(views)).toEqual({ open: 4, waiting: 1, overdue: 1, noTimeout: 2, partial: 1 });
    // A gate whose reminder ladder ran out is overdue, with or without a timeout of its own.
    const ranOut = viewGate({ ...gateFixture({ id: "5" }), overdueAt: T0 + 60_000 }, now);
    expect(ranOut.overdueSince).toBe(new Date(T0 + 60_000).toISOString());
    expect(countGates([...views, ranOut])).toEqual({ open: 5, waiting: 1, overdue: 2, noTimeout: 2, partial: 1 });
    expect(countGates([])).toEqual({ open: 0, waiting: 0, overdue: 0, noTimeout: 0, partial: 0 });
  });
});
