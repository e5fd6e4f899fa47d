import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AskSchema, type Question } from "../../../src/domain.js";
import { ProtocolError } from "../../../src/errors.js";
import { parseAskComment } from "../../../src/protocol/ask.js";
import { codeLineFlags } from "../../../src/protocol/codeBlocks.js";
import { COMMAND_NAMES, parseCommand } from "../../../src/protocol/commands.js";
import { parseReply } from "../../../src/protocol/reply.js";
import { visibleReplyText } from "../../../src/protocol/visibleText.js";

const RUNS = { numRuns: 10_000 };
const INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

// Pieces that exercise the parsers' special cases; random strings alone rarely hit them.
const FRAGMENTS = [
  "\n",
  "\r\n",
  "\r",
  " ",
  "\t",
  "\u00A0",
  "\u2028",
  ">",
  "> ",
  "  > ",
  "<!--",
  "-->",
  "<!",
  "--",
  "-- ",
  "-",
  "1. ",
  "2) ",
  "3: ",
  "2 - ",
  "Q1: ",
  "q2:",
  "0. ",
  "99. ",
  "1.5",
  "01",
  "/answer ",
  "/answer 1 ",
  "/answer 2",
  "/note ",
  "/stop",
  "/Agent.",
  "/usr/bin",
  "/frobnicate",
  "On Mon, 2 Dec 2026, A <a@b.c>",
  " wrote:",
  "On ",
  "From: x",
  "Sent: y",
  "**From:**",
  "__________",
  "-----Original Message-----",
  "SQLite",
  "sqlite",
  "Go",
  "Go modules",
  "**",
  "_",
  "`",
  ", ",
  ".",
  "\u200B",
  "\u202E",
  "\u2066",
  "\uFEFF",
  "\u00AD",
  "é",
  "e\u0301",
  "İ",
  "🙋",
  "<!-- escalation:ask:v1 eyJ2IjoxfQ -->",
  // Code blocks, e-mail headers in other languages, option forms, mentions, reactions, discussion.
  "```",
  "```python",
  "~~~",
  "````",
  "    ",
  "\t",
  ">>> ",
  "... ",
  "Am Do., 3. Dez. 2026 um 10:00 Uhr schrieb A <a@b.c>:",
  "Le jeu. 3 déc. 2026, A <a@b.c> a écrit :",
  "El jue, A escribió:",
  "Em qui., A escreveu:",
  "Il giorno A ha scritto:",
  "Op do 3 dec 2026 schreef A <a@b.c>:",
  "2026年12月3日(木) 10:00 A <a@b.c>:",
  "Aさんは書きました:",
  "A 于2026年12月3日写道：",
  "Von: x",
  "Gesendet: y",
  "De : x",
  "Envoyé : y",
  "发件人: x",
  "主题: y",
  "差出人: x",
  "件名: y",
  "-----Ursprüngliche Nachricht-----",
  "Option 2",
  "option #1",
  "(2)",
  "#2",
  "@escalation ",
  "@escalation[bot] ",
  "@alice ",
  "@acme/team ",
  "answer: ",
  "👍",
  "👍🏽",
  "+1",
  "-1",
  ":+1:",
  "/discuss",
  "?",
  "？",
];

const APP = ["escalation[bot]", "escalation"];

const fragmentText = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 4 })), { maxLength: 30 }).map((parts) => parts.join(""));

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
        const reply = parseReply(body, questions, APP);
        if (reply.verdict.kind !== "answers") expect(reply.answers).toEqual([]);
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

  it("visibleReplyText leaves no comments, quotes (outside code) or invisible characters, and is idempotent", () => {
    fc.assert(
      fc.property(text, (body) => {
        const visible = visibleReplyText(body);
        expect(visible).not.toContain("<!--");
        expect(visible).not.toMatch(INVISIBLE);
        expect(visible).not.toContain("\r");
        const lines = visible.split("\n");
        const code = codeLineFlags(lines);
        lines.forEach((line, i) => {
          if (/^\s*>/.test(line)) expect(code[i]).toBe(true);
        });
        expect(visibleReplyText(visible)).toBe(visible);
      }),
      RUNS,
    );
  });

  // Words that are no syntax of their own: no quote, fence, mention, command, header or separator.
  const word = fc.stringMatching(/^[a-z][a-z0-9 ]{0,12}[a-z0-9]$/);
  const codeLine = fc.oneof(
    fc
      .tuple(fc.constantFrom(">>> ", "> ", ">", "... ", "  > "), fc.string({ maxLength: 12 }))
      .map(([head, rest]) => head + rest.replace(/[`~\r\n\u0000-\u001f<&!]/g, "")),
    word,
  );

  it("a code block keeps every line, '>' lines included, fenced or indented", () => {
    fc.assert(
      fc.property(word, fc.array(codeLine, { minLength: 1, maxLength: 6 }), fc.constantFrom("```", "~~~", "```python", "indented"), (before, code, style) => {
        const lines = code.map((line) => line.trimEnd()).filter((line) => line.trim() !== "");
        fc.pre(lines.length > 0);
        const block = style === "indented" ? lines.map((line) => `    ${line}`).join("\n") : `${style}\n${lines.join("\n")}\n${style.slice(0, 3)}`;
        const body = `${before}\n\n${block}\n\n> a quoted line`;
        expect(visibleReplyText(body)).toBe(`${before}\n\n${block}`);
      }),
      { numRuns: 2_000 },
    );
  });

  const HEADERS = [
    "On Thu, Dec 3, 2026 at 10:00 AM Bot <b@c.d> wrote:",
    "Am Do., 3. Dez. 2026 um 10:00 Uhr schrieb Bot <b@c.d>:",
    "Le jeu. 3 déc. 2026 à 10:00, Bot <b@c.d> a écrit :",
    "El jue, 3 dic 2026 a las 10:00, Bot (<b@c.d>) escribió:",
    "Em qui., 3 de dez. de 2026 às 10:00, Bot <b@c.d> escreveu:",
    "Il giorno gio 3 dic 2026 alle ore 10:00 Bot <b@c.d> ha scritto:",
    "Op do 3 dec 2026 om 10:00 schreef Bot <b@c.d>:",
    "2026年12月3日(木) 10:00 Bot <b@c.d>:",
    "Bot さんは書きました:",
    "Bot <b@c.d> 于2026年12月3日周四 10:00写道：",
    "________________________________\nVon: Bot <b@c.d>\nGesendet: Donnerstag\nAn: me\nBetreff: Re: x",
    "De : Bot <b@c.d>\nEnvoyé : jeudi\nÀ : me\nObjet : Re: x",
    "发件人: Bot <b@c.d>\n发送时间: 2026年12月3日\n收件人: me\n主题: Re: x",
    "差出人: Bot <b@c.d>\n送信日時: 2026年12月3日\n宛先: me\n件名: Re: x",
  ];

  it("an e-mail header in any language is cut with everything after it; the answer keeps no part of it", () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 3 }), fc.constantFrom(...HEADERS), text, (answer, header, tail) => {
        const body = `${answer.join("\n")}\n\n${header}\n\n${tail}`;
        expect(visibleReplyText(body)).toBe(answer.join("\n"));
      }),
      { numRuns: 2_000 },
    );
  });

  it("Option N, (N) and a reply to the app choose option N", () => {
    const options = fc.uniqueArray(fc.stringMatching(/^[A-Z][a-z]{2,8}$/), {
      minLength: 1,
      maxLength: 6,
      comparator: (a, b) => a.toLowerCase() === b.toLowerCase(),
    });
    fc.assert(
      fc.property(
        options,
        fc.nat(),
        fc.constantFrom("Option N", "option N", "(N)", "@escalation N", "@escalation[bot] N", "@Escalation, Option N", "@escalation answer: N"),
        (labels, pick, form) => {
          const n = (pick % labels.length) + 1;
          const reply = parseReply(form.replace("N", String(n)), [{ text: "Which?", options: labels }], APP);
          expect(reply.answers).toEqual([{ question: 0, text: expect.any(String), option: labels[n - 1], optionIndex: n - 1 }]);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  describe("parseAskComment yields undefined, a valid Ask, or a ProtocolError", () => {
    const marker = (encoded: string) => `<!-- escalation:ask:v1 ${encoded} -->`;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

    // JSON shaped like an ask and mostly valid, so validation reaches every field and check.
    const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 20 }, { arbitrary: fc.jsonValue(), weight: 1 });
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
