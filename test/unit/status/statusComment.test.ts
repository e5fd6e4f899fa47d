import { describe, expect, it } from "vitest";
import { MAX_MARKER_CHARS, renderMarker, renderSignedMarker } from "../../../src/protocol/marker.js";
import {
  ANSWER_CHARS,
  StatusStateSchema,
  parseStatusComment,
  readStatusComment,
  renderStatusComment,
  type StatusState,
} from "../../../src/status/statusComment.js";
import { testSeal } from "../../support/seal.js";

const seal = testSeal();

type StatusGate = StatusState["gates"][number];
type StatusAnswer = StatusGate["answers"][number];

const answer = (over: Partial<StatusAnswer> = {}): StatusAnswer => ({
  question: 0,
  text: "2 - keep it embedded",
  option: "SQLite",
  optionIndex: 1,
  note: "keep it embedded",
  by: "alice",
  at: 1_712_345_678_901,
  source: "human",
  url: "https://github.com/octo/demo/issues/7#issuecomment-101",
  ...over,
});

const state: StatusState = {
  v: 1,
  nextRound: 3,
  gates: [
    { id: "gateAAAAAAAA", state: "resumed", round: 0, answeredBy: "alice", answeredAt: 1_712_345_678_901, answerCommentId: 101, answers: [answer()] },
    { id: "gateBBBBBBBB", state: "superseded", round: 1, answers: [] },
    {
      id: "gateCCCCCCCC",
      state: "open",
      round: 2,
      answers: [answer({ question: 1, text: "partial", option: undefined, optionIndex: undefined, note: undefined, source: "default" })],
    },
  ],
};

/** `n` gates in ask order, each with `answers` answers of `chars` characters. */
const gates = (n: number, answers = 1, chars = 40): StatusGate[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `g${String(i).padStart(11, "0")}`,
    state: "resumed",
    round: i,
    answeredBy: "octocat",
    answeredAt: 1_712_345_678_901 + i,
    answerCommentId: 2_400_000_000 + i,
    answers: Array.from({ length: answers }, (_, q) => answer({ question: q, text: "x".repeat(chars), by: "octocat" })),
  }));

const markerOf = (body: string) => body.split("\n").at(-1)!;

describe("renderStatusComment", () => {
  it("renders a heading, one bullet per line and the state marker last", () => {
    const body = renderStatusComment(["round 0: agent started", "round 0: agent finished (exit 0, 3s)"], state, seal);
    const lines = body.split("\n");
    expect(lines[0]).toBe("### 🤖 Escalation status");
    expect(lines).toContain("- round 0: agent started");
    expect(lines).toContain("- round 0: agent finished (exit 0, 3s)");
    expect(markerOf(body)).toMatch(/^<!-- escalation:status:v1 [A-Za-z0-9_-]+ sig=[A-Za-z0-9_-]{43} -->$/);
    expect(body).not.toContain("omitted");
  });

  it("keeps the state recoverable from the comment alone", () => {
    expect(parseStatusComment(renderStatusComment(["x"], state, seal), seal)).toEqual(state);
    const empty: StatusState = { v: 1, nextRound: 0, gates: [] };
    expect(parseStatusComment(renderStatusComment([], empty, seal), seal)).toEqual(empty);
  });

  it.each<[number, number, number]>([
    // [lines, shown, omitted]
    [60, 60, 0],
    [61, 60, 1],
    [150, 60, 90],
  ])("with %i lines shows the last %i and says %i were omitted", (count, shown, omitted) => {
    const lines = Array.from({ length: count }, (_, i) => `entry ${i + 1}`);
    const body = renderStatusComment(lines, state, seal);
    const bullets = body.split("\n").filter((l) => l.startsWith("- "));
    expect(bullets).toHaveLength(shown);
    expect(bullets.at(-1)).toBe(`- entry ${count}`);
    expect(bullets[0]).toBe(`- entry ${count - shown + 1}`);
    if (omitted > 0) expect(body).toContain(`_${omitted} earlier entries omitted._`);
    else expect(body).not.toContain("omitted");
  });
});

describe("renderStatusComment: large histories", () => {
  it("keeps the whole state of 50 gates (what processFeedback sends)", () => {
    const big: StatusState = { v: 1, nextRound: 50, gates: gates(50) }; // processFeedback keeps the last 50
    expect(parseStatusComment(renderStatusComment(["x"], big, seal), seal)).toEqual(big);
  });

  it.each<[string, number, number, number]>([
    // [name, gates, answers per gate, characters per answer]
    ["the schema's 200 gates with one short answer each", 200, 1, 40],
    ["200 gates with 20 answers of the full length each", 200, 20, ANSWER_CHARS],
    ["one gate too large on its own, among others", 3, 20, ANSWER_CHARS],
  ])("%s: renders, within the marker limit, the newest gates that fit", (_name, n, answers, chars) => {
    const full: StatusState = { v: 1, nextRound: n, gates: gates(n, answers, chars) };
    expect(StatusStateSchema.safeParse(full).success).toBe(true);
    const body = renderStatusComment(["round 0: agent started"], full, seal);
    expect(markerOf(body).length).toBeLessThanOrEqual(MAX_MARKER_CHARS.status + "<!-- escalation:status:v1  -->".length);
    const parsed = parseStatusComment(body, seal);
    expect(parsed).toBeDefined();
    expect(parsed!.nextRound).toBe(n);
    expect(parsed!.gates.length).toBeGreaterThan(0);
    // The kept gates are the newest ones, unchanged.
    expect(parsed!.gates).toEqual(full.gates.slice(full.gates.length - parsed!.gates.length));
  });

  // BUG (src/status/statusComment.ts, renderStatusComment): only the hidden state is bounded
  // (MAX_MARKER_CHARS.status = 49,152, "most of a comment (GitHub's limit is 65,536)"); the log lines
  // are not. A line may be long — src/round/lines.ts endLine() appends up to 16 KiB of the
  // agent's output tail for a failed run — so a few failed runs plus a full state produce a body
  // over 65,536 characters, which GitHub rejects (422), and the status comment stops updating.
  // Expected: the rendered comment always fits GitHub's limit (trim or cut the shown lines).
  it("keeps the whole comment within GitHub's 65,536-character limit", () => {
    const failure = (round: number) =>
      `round ${round}: agent failed (exit 1) after 2m\n\n  \`\`\`text\n${Array.from({ length: 20 }, () => `  ${"e".repeat(790)}`).join("\n")}\n  \`\`\``;
    const lines = [failure(0), failure(1), failure(2), failure(3)];
    const body = renderStatusComment(lines, { v: 1, nextRound: 4, gates: gates(200, 20, ANSWER_CHARS) }, seal);
    expect(body.length).toBeLessThanOrEqual(65_536);
  });
});

describe("parseStatusComment", () => {
  it("returns undefined for a comment without a status marker (an ask marker does not count)", () => {
    expect(parseStatusComment("### 🤖 Escalation status\n\n- nothing", seal)).toBeUndefined();
    expect(parseStatusComment(renderMarker("ask", state), seal)).toBeUndefined();
  });

  it.each<[string, unknown]>([
    ["another version", { ...state, v: 2 }],
    ["a negative round", { ...state, nextRound: -1 }],
    ["gates not an array", { ...state, gates: {} }],
    ["a gate without id", { v: 1, nextRound: 0, gates: [{ state: "open", round: 0, answers: [] }] }],
    ["a gate without round", { v: 1, nextRound: 0, gates: [{ id: "g", state: "open", answers: [] }] }],
    ["an over-long gate id", { v: 1, nextRound: 0, gates: [{ id: "x".repeat(41), state: "open", round: 0, answers: [] }] }],
    ["an answer with an unknown source", { v: 1, nextRound: 0, gates: [{ id: "g", state: "answered", round: 0, answers: [{ ...answer(), source: "bot" }] }] }],
    [
      "an over-long answer text",
      { v: 1, nextRound: 0, gates: [{ id: "g", state: "answered", round: 0, answers: [answer({ text: "x".repeat(ANSWER_CHARS + 2) })] }] },
    ],
    ["201 gates", { v: 1, nextRound: 0, gates: gates(201, 0) }],
  ])("returns undefined for a status marker with %s", (_name, payload) => {
    expect(readStatusComment(`text\n${renderSignedMarker("status", payload, seal)}`, seal)).toEqual({ outcome: "unreadable" });
  });

  it("reads the last status marker when the comment was edited to carry two", () => {
    const older: StatusState = { v: 1, nextRound: 1, gates: [] };
    const body = `${renderSignedMarker("status", older, seal)}\n${renderSignedMarker("status", state, seal)}`;
    expect(parseStatusComment(body, seal)).toEqual(state);
  });

  it("a status marker that is not JSON carries no signature: not the app's state", () => {
    expect(readStatusComment("<!-- escalation:status:v1 bm90IGpzb24 -->", seal)).toEqual({ outcome: "unsigned" });
  });
});

describe("status comment: human time and agent time per round", () => {
  it("tabulates each round's human wait and agent run apart, with totals, and keeps them in the hidden record", () => {
    const state = {
      v: 1 as const,
      nextRound: 2,
      gates: [],
      rounds: [
        { round: 0, startedAt: 1, runMs: 42_000, outcome: "success" as const },
        { round: 1, startedAt: 2, runMs: 90_000, outcome: "failure" as const, gate: "7", waitMs: 7_500_000, answeredBy: "alice" },
        { round: 2, startedAt: 3, runMs: 5_000, outcome: "success" as const, gate: "8", waitMs: 3_600_000, answeredBy: "escalation" },
      ],
    };
    const body = renderStatusComment(["a line"], state, seal);
    expect(body).toContain(
      [
        "| Round | Human wait (ask → answer) | Agent run (spawn → exit) |",
        "| --- | --- | --- |",
        "| 0 | — (dispatched) | 42s, finished |",
        "| 1 | 2h 5m (@alice) | 1m 30s, failed |",
        "| 2 | 1h (the defaults, at timeout) | 5s, finished |",
        "| **all** | **3h 5m** | **2m 17s** |",
      ].join("\n"),
    );
    expect(parseStatusComment(body, seal)?.rounds).toEqual(state.rounds);
  });

  it("shows no table before any round has run", () => {
    expect(renderStatusComment(["a line"], { v: 1, nextRound: 0, gates: [] }, seal)).not.toContain("| Round |");
  });
});

describe("status record of an approval", () => {
  it("keeps the outcome, the rule and every vote, so a rebuilt gate has its tally", () => {
    const approval = {
      outcome: "denied" as const,
      required: 2,
      policy: "any-deny" as const,
      votes: [
        { login: "alice", vote: "approve" as const, at: 1, commentId: 11, url: "https://github.com/o/r/issues/1#issuecomment-11" },
        { login: "carol", vote: "deny" as const, at: 2, commentId: 12, note: "not before the freeze" },
      ],
    };
    const withApproval: StatusState = {
      v: 1,
      nextRound: 2,
      gates: [
        {
          id: "gateAPPROVAL",
          state: "resumed",
          round: 0,
          answers: [answer({ text: "denied", option: undefined, optionIndex: undefined, note: "not before the freeze", approval })],
        },
      ],
    };
    expect(parseStatusComment(renderStatusComment(["line"], withApproval, seal), seal)).toEqual(withApproval);
    expect(
      StatusStateSchema.safeParse({
        ...withApproval,
        gates: [{ ...withApproval.gates[0]!, answers: [{ ...answer(), approval: { ...approval, policy: "unanimous" } }] }],
      }).success,
    ).toBe(false);
  });
});
