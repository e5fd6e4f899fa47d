import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../src/errors.js";
import { AskSchema, parseAskComment, type Question } from "../../../src/protocol/ask.js";
import { COMMAND_NAMES, parseCommand } from "../../../src/protocol/commands.js";
import { parseReply } from "../../../src/protocol/reply.js";
import { visibleReplyText } from "../../../src/protocol/visibleText.js";

const RUNS = { numRuns: 10_000 };
const INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

// Pieces that exercise the parsers' special cases; random strings alone rarely hit them.
const FRAGMENTS = [
  "\n", "\r\n", "\r", " ", "\t", "\u00A0", "\u2028", ">", "> ", "  > ", "<!--", "-->", "<!", "--", "-- ", "-",
  "1. ", "2) ", "3: ", "2 - ", "Q1: ", "q2:", "0. ", "99. ", "1.5", "01", "/answer ", "/answer 1 ", "/answer 2",
  "/note ", "/stop", "/Agent.", "/usr/bin", "/frobnicate", "On Mon, 2 Dec 2026, A <a@b.c>", " wrote:", "On ",
  "From: x", "Sent: y", "**From:**", "__________", "-----Original Message-----", "SQLite", "sqlite", "Go",
  "Go modules", "**", "_", "`", ", ", ".", "\u200B", "\u202E", "\u2066", "\uFEFF", "\u00AD", "é", "e\u0301", "İ", "🙋",
  "<!-- escalation:ask:v1 eyJ2IjoxfQ -->",
];

const fragmentText = fc
  .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 4 })), { maxLength: 30 })
  .map((parts) => parts.join(""));

// A tiny vocabulary makes comment and quote syntax appear (and overlap) often.
const syntaxText = fc
  .array(fc.constantFrom("<!--", "-->", "<!", "--", "<", "!", "-", ">", " ", "\n", "x", "\u200B"), { maxLength: 20 })
  .map((parts) => parts.join(""));

const text = fc.oneof(
  { arbitrary: fragmentText, weight: 3 },
  { arbitrary: syntaxText, weight: 1 },
  { arbitrary: fc.string({ maxLength: 80 }), weight: 1 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 80 }), weight: 1 },
);

const option = fc.oneof(fc.constantFrom("SQLite", "Postgres", "Go", "Go modules", "1", "20", "*nix", "C++", "é"), fc.string({ maxLength: 8 }));

const question: fc.Arbitrary<Question> = fc.record({
  text: fc.string({ minLength: 1, maxLength: 10 }),
  options: fc.array(option, { maxLength: 5 }),
});

describe("fuzz", () => {
  it("parseReply never throws and accounts for every question exactly once", () => {
    fc.assert(
      fc.property(text, fc.array(question, { maxLength: 5 }), (body, questions) => {
        const reply = parseReply(body, questions);
        const answered = reply.answers.map((answer) => answer.question);
        for (const answer of reply.answers) {
          expect(answer.question).toBeGreaterThanOrEqual(0);
          expect(answer.question).toBeLessThan(questions.length);
          const options = questions[answer.question]!.options;
          if (answer.optionIndex !== undefined) {
            expect(answer.optionIndex).toBeGreaterThanOrEqual(0);
            expect(answer.optionIndex).toBeLessThan(options.length);
            expect(answer.option).toBe(options[answer.optionIndex]);
          } else {
            expect(answer.option).toBeUndefined();
          }
        }
        expect(new Set(answered).size).toBe(answered.length);
        expect(answered.filter((index) => reply.unanswered.includes(index))).toEqual([]);
        expect([...answered, ...reply.unanswered].sort((a, b) => a - b)).toEqual(questions.map((_, index) => index));
      }),
      RUNS,
    );
  });

  it("parseCommand never throws and names a known command or 'unknown'", () => {
    const names: readonly string[] = [...COMMAND_NAMES, "unknown"];
    fc.assert(
      fc.property(text, (body) => {
        const command = parseCommand(body);
        if (command !== undefined) expect(names).toContain(command.name);
      }),
      RUNS,
    );
  });

  it("visibleReplyText leaves no comments, quotes or invisible characters, and is idempotent", () => {
    fc.assert(
      fc.property(text, (body) => {
        const visible = visibleReplyText(body);
        expect(visible).not.toContain("<!--");
        expect(visible).not.toMatch(INVISIBLE);
        expect(visible).not.toContain("\r");
        for (const line of visible.split("\n")) expect(line.startsWith(">")).toBe(false);
        expect(visibleReplyText(visible)).toBe(visible);
      }),
      RUNS,
    );
  });

  describe("parseAskComment yields undefined, a valid Ask, or a ProtocolError", () => {
    const marker = (encoded: string) => `<!-- escalation:ask:v1 ${encoded} -->`;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

    // JSON shaped like an ask and mostly valid, so validation reaches every field and check.
    const mostly = <T,>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 20 }, { arbitrary: fc.jsonValue(), weight: 1 });
    const askLike = fc.record(
      {
        v: mostly(fc.constant(1)),
        id: mostly(fc.stringMatching(/^[A-Za-z0-9_-]{6,12}$/)),
        kind: mostly(fc.constantFrom("question", "approval")),
        round: mostly(fc.nat({ max: 100_000 })),
        questions: mostly(
          fc.array(
            fc.record(
              {
                text: mostly(fc.string({ minLength: 1, maxLength: 10 })),
                // "a" and "A" together hit the case-insensitive duplicate check.
                options: mostly(fc.uniqueArray(fc.constantFrom("a", "A", "b", "2"), { maxLength: 4 })),
                default: mostly(fc.constantFrom("a", "2", "9", "free text")),
                timeoutSeconds: mostly(fc.integer({ min: 1, max: 86_400 })),
              },
              { requiredKeys: ["text"] },
            ),
            { minLength: 1, maxLength: 3 },
          ),
        ),
        timeoutSeconds: mostly(fc.integer({ min: 1, max: 86_400 })),
        context: mostly(fc.string({ maxLength: 10 })),
      },
      { requiredKeys: ["v", "id", "round", "questions"] },
    );

    const bodies = fc.oneof(
      text,
      fc.string({ maxLength: 40 }).map((s) => `${s}<!-- escalation:ask:v1 ${s} -->`),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/).map(marker),
      fc.tuple(text, fc.jsonValue({ maxDepth: 3 })).map(([prefix, value]) => `${prefix}\n${marker(encode(value))}`),
      fc.tuple(text, askLike).map(([prefix, value]) => `${prefix}\n${marker(encode(value))}`),
    );

    it("for arbitrary bodies and markers", () => {
      fc.assert(
        fc.property(bodies, (body) => {
          let ask: unknown;
          try {
            ask = parseAskComment(body);
          } catch (error) {
            expect(error).toBeInstanceOf(ProtocolError);
            return;
          }
          if (ask !== undefined) expect(AskSchema.safeParse(ask).success).toBe(true);
        }),
        RUNS,
      );
    });
  });
});
