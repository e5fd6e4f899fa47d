import { describe, expect, it } from "vitest";
import { answerComment } from "../../../src/cli/commands/answer.js";
import { UsageError } from "../../../src/cli/usage.js";
import { parseReply } from "../../../src/protocol/reply.js";
import { gateFixture } from "../../support/gates.js";

const single = gateFixture();
const several = gateFixture({
  ask: {
    questions: [
      { text: "Which database?", options: ["Postgres", "SQLite"], default: "Postgres" },
      { text: "Keep the old API?", options: ["yes", "no"], default: "yes" },
      { text: "Anything else?", default: "no" },
    ],
  },
});

describe("answerComment: the comment a human would write", () => {
  it("--choice N posts the number, which the reply parser reads as that option", () => {
    const body = answerComment(single, { mode: "choice", choice: 2 });
    expect(body).toBe("2");
    expect(parseReply(body, single.ask.questions).answers[0]).toMatchObject({ option: "SQLite", optionIndex: 1 });
  });

  it("--text posts the text as it is", () => {
    expect(answerComment(single, { mode: "text", text: "SQLite, keep it embedded" })).toBe("SQLite, keep it embedded");
  });

  it("--defaults posts /defaults when every question has a default", () => {
    expect(answerComment(several, { mode: "defaults" })).toBe("/defaults");
  });

  it("--raw posts one numbered line per question, in order, which the parser maps back", () => {
    const body = answerComment(several, {
      mode: "raw",
      answers: new Map([
        [3, "nothing"],
        [1, "SQLite"],
        [2, "no"],
      ]),
    });
    expect(body).toBe("1. SQLite\n2. no\n3. nothing");
    const parsed = parseReply(body, several.ask.questions);
    expect(parsed.unanswered).toEqual([]);
    expect(parsed.answers.map((a) => a.option ?? a.text)).toEqual(["SQLite", "no", "nothing"]);
  });

  it("--raw for a single question posts the answer alone (a leading '1.' would pick option 1)", () => {
    const body = answerComment(single, { mode: "raw", answers: new Map([[1, "SQLite"]]) });
    expect(body).toBe("SQLite");
    expect(parseReply(body, single.ask.questions).answers[0]!.option).toBe("SQLite");
  });

  it.each<[string, Parameters<typeof answerComment>[0], Parameters<typeof answerComment>[1], RegExp]>([
    ["--choice on several questions", several, { mode: "choice", choice: 1 }, /has 3 questions; --choice answers a single one/],
    ["--choice beyond the options", single, { mode: "choice", choice: 3 }, /--choice 3: the question has 2 options \(1-2\)/],
    ["--choice without options", gateFixture({ ask: { questions: [{ text: "Free?" }] } }), { mode: "choice", choice: 1 }, /has no options; answer with --text/],
    [
      "--defaults with a question lacking one",
      gateFixture({ ask: { questions: [{ text: "A?", default: "x" }, { text: "B?" }] } }),
      { mode: "defaults" },
      /question 2 of gate 4711 has no default/,
    ],
    ["--raw naming a missing question", several, { mode: "raw", answers: new Map([[4, "x"]]) }, /has 3 questions; there is no question 4/],
  ])("refuses %s with a usage error", (_name, gate, mode, message) => {
    expect(() => answerComment(gate, mode)).toThrow(UsageError);
    expect(() => answerComment(gate, mode)).toThrow(message);
  });
});
