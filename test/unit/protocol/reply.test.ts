import { describe, expect, it } from "vitest";
import type { Answer, Question } from "../../../src/domain.js";
import { matchOption, optionsNamed, parseReply } from "../../../src/protocol/reply.js";

const q = (text: string, options: string[] = []): Question => ({ text, options });
const db = q("Which database?", ["SQLite", "Postgres"]);
const free = q("Anything else?");
const lang = q("Which toolchain?", ["Go", "Go modules", "Rust"]);

describe("matchOption", () => {
  it.each<[string, string, Question, ReturnType<typeof matchOption>]>([
    ["the bare number", "2", db, { option: "Postgres", optionIndex: 1 }],
    ["the number with spaces around", "  1  ", db, { option: "SQLite", optionIndex: 0 }],
    ["number, dash, words", "2 - keep it small", db, { option: "Postgres", optionIndex: 1, note: "keep it small" }],
    ["number, full stop, words", "2. because", db, { option: "Postgres", optionIndex: 1, note: "because" }],
    ["number, comma, words", "2, fine", db, { option: "Postgres", optionIndex: 1, note: "fine" }],
    ["number, paren, words", "1) small", db, { option: "SQLite", optionIndex: 0, note: "small" }],
    ["number, then words on the next line", "1\nbecause it is embedded", db, { option: "SQLite", optionIndex: 0, note: "because it is embedded" }],
    ["emphasised number", "**2**", db, { option: "Postgres", optionIndex: 1 }],
    ["a decimal is not an option number", "1.5", db, undefined],
    ["a range is not an option number", "1-2 days", db, undefined],
    ["number then a bare word is not an option number", "2 weeks", db, undefined],
    ["an out-of-range number", "7", db, undefined],
    ["zero", "0", db, undefined],
    ["the exact label", "SQLite", db, { option: "SQLite", optionIndex: 0 }],
    ["the label in another case", "postgres", db, { option: "Postgres", optionIndex: 1 }],
    ["label, comma, words", "SQLite, keep it embedded", db, { option: "SQLite", optionIndex: 0, note: "keep it embedded" }],
    ["label, full stop, words", "sqlite. embedded", db, { option: "SQLite", optionIndex: 0, note: "embedded" }],
    ["label, space, words", "SQLite keep it", db, { option: "SQLite", optionIndex: 0, note: "keep it" }],
    ["label, then a parenthesised note", "SQLite (embedded)", db, { option: "SQLite", optionIndex: 0, note: "(embedded)" }],
    ["label with trailing punctuation only", "Postgres!", db, { option: "Postgres", optionIndex: 1 }],
    ["bold label", "**SQLite**", db, { option: "SQLite", optionIndex: 0 }],
    ["bold label with a note", "**SQLite**, small", db, { option: "SQLite", optionIndex: 0, note: "small" }],
    ["italic label", "_Postgres_", db, { option: "Postgres", optionIndex: 1 }],
    ["label on its own line, note below", "Postgres\nwe already run it", db, { option: "Postgres", optionIndex: 1, note: "we already run it" }],
    ["a label glued to more letters", "SQLiteDB", db, undefined],
    ["the label later in the text", "I think SQLite", db, undefined],
    ["longest label wins", "Go modules", lang, { option: "Go modules", optionIndex: 1 }],
    ["longest label wins, with a note", "go modules please", lang, { option: "Go modules", optionIndex: 1, note: "please" }],
    ["the shorter label still matches alone", "Go, plain", lang, { option: "Go", optionIndex: 0, note: "plain" }],
    ["Go does not match Golang", "Golang", lang, undefined],
    ["a single-option question", "1 - sure", q("Proceed?", ["Yes"]), { option: "Yes", optionIndex: 0, note: "sure" }],
    ["a single-option question by label", "yes", q("Proceed?", ["Yes"]), { option: "Yes", optionIndex: 0 }],
    ["a question without options never matches", "1", free, undefined],
    ["a label starting with punctuation", "*nix only", q("OS?", ["*nix", "Windows"]), { option: "*nix", optionIndex: 0, note: "only" }],
    ["a label ending with punctuation", "C++ obviously", q("Lang?", ["C", "C++"]), { option: "C++", optionIndex: 1, note: "obviously" }],
    ["a numeric label beyond the option count", "20", q("Size?", ["10", "20"]), { option: "20", optionIndex: 1 }],
    ["free text", "neither, use files", db, undefined],
    ["a note naming another option is ambiguous", "SQLite or Postgres, whichever", db, undefined],
    ["a number whose note names another option is ambiguous", "1, or Postgres if it is easier", db, undefined],
    ["a note repeating the chosen option is fine", "SQLite: SQLite is embedded", db, { option: "SQLite", optionIndex: 0, note: "SQLite is embedded" }],
    ["a note naming a longer label that holds the chosen one is ambiguous", "Go, not Go modules", lang, undefined],
    [
      "a note with a word that only contains another label is fine",
      "SQLite, no Postgresql here",
      db,
      { option: "SQLite", optionIndex: 0, note: "no Postgresql here" },
    ],
  ])("%s", (_name, text, question, expected) => {
    expect(matchOption(text, question)).toEqual(expected);
  });
});

describe("parseReply with one question", () => {
  it.each<[string, string, Question, Answer[]]>([
    ["the whole text answers", "Use a flat file.\nIt is simpler.", free, [{ question: 0, text: "Use a flat file.\nIt is simpler." }]],
    ["an option by number", "2", db, [{ question: 0, text: "2", option: "Postgres", optionIndex: 1 }]],
    [
      "an option with a note",
      "SQLite, keep it embedded",
      db,
      [{ question: 0, text: "SQLite, keep it embedded", option: "SQLite", optionIndex: 0, note: "keep it embedded" }],
    ],
    ["an out-of-range number is free text", "7", db, [{ question: 0, text: "7" }]],
    ["a numbered line is still the whole text", "1. Postgres", free, [{ question: 0, text: "1. Postgres" }]],
    ["/answer 1 TEXT", "/answer 1 Postgres", db, [{ question: 0, text: "Postgres", option: "Postgres", optionIndex: 1 }]],
    ["/answer 1 with the text below", "/answer 1\nuse tabs", free, [{ question: 0, text: "use tabs" }]],
    ["/answer without a number", "/answer use tabs", free, [{ question: 0, text: "use tabs" }]],
    ["/answer with a bare option number", "/answer 2", db, [{ question: 0, text: "2", option: "Postgres", optionIndex: 1 }]],
    ["/answer for another question answers nothing", "/answer 2 yes", free, []],
    ["another command answers nothing", "/note use tabs", free, []],
    ["/defaults answers nothing", "/defaults", db, []],
    ["an unknown command answers nothing", "/frobnicate", free, []],
    ["a path is not a command", "/usr/bin is wrong", free, [{ question: 0, text: "/usr/bin is wrong" }]],
    [
      "quoting, markers and an e-mail tail are ignored",
      "> Which database?\n\nPostgres\r\n\r\nOn Mon, 2 Dec 2026 at 10:00, Bot <b@c.d> wrote:\r\n> <!-- escalation:ask:v1 eyJ2IjoxfQ -->",
      db,
      [{ question: 0, text: "Postgres", option: "Postgres", optionIndex: 1 }],
    ],
    ["only quoted text answers nothing", "> 2", db, []],
  ])("%s", (_name, body, question, answers) => {
    const reply = parseReply(body, [question]);
    expect(reply.answers).toEqual(answers);
    expect(reply.unanswered).toEqual(answers.length === 0 ? [0] : []);
  });
});

describe("parseReply with several questions", () => {
  const three = [db, free, lang];

  it.each<[string, string, Answer[], number[]]>([
    [
      "N. lines",
      "1. Postgres\n2. nothing else\n3. Rust",
      [
        { question: 0, text: "Postgres", option: "Postgres", optionIndex: 1 },
        { question: 1, text: "nothing else" },
        { question: 2, text: "Rust", option: "Rust", optionIndex: 2 },
      ],
      [],
    ],
    [
      "N) N: N - and QN: prefixes",
      "1) 2\n2: fine\nQ3: 1",
      [
        { question: 0, text: "2", option: "Postgres", optionIndex: 1 },
        { question: 1, text: "fine" },
        { question: 2, text: "1", option: "Go", optionIndex: 0 },
      ],
      [],
    ],
    ["N - prefix", "2 - keep logs", [{ question: 1, text: "keep logs" }], [0, 2]],
    ["lower-case q prefix", "q2: yes", [{ question: 1, text: "yes" }], [0, 2]],
    [
      "multi-line answers",
      "2. first line\nsecond line\n\nthird line\n1. SQLite",
      [
        { question: 0, text: "SQLite", option: "SQLite", optionIndex: 0 },
        { question: 1, text: "first line\nsecond line\n\nthird line" },
      ],
      [2],
    ],
    ["text before the first numbered line is ignored", "Thanks!\n2. yes", [{ question: 1, text: "yes" }], [0, 2]],
    ["answer text on the line after the number", "1.\nPostgres", [{ question: 0, text: "Postgres", option: "Postgres", optionIndex: 1 }], [1, 2]],
    [
      "a later line for the same question replaces the earlier",
      "1. SQLite\n1. Postgres",
      [{ question: 0, text: "Postgres", option: "Postgres", optionIndex: 1 }],
      [1, 2],
    ],
    ["an out-of-range number is ignored with its continuation", "2. yes\n4. extra\nmore", [{ question: 1, text: "yes" }], [0, 2]],
    ["question 0 is out of range", "0. yes", [], [0, 1, 2]],
    ["a decimal does not start an answer", "2. about\n1.5 hours", [{ question: 1, text: "about\n1.5 hours" }], [0, 2]],
    [
      "an indented numbered line continues the answer",
      "2. reasons:\n  1. fast\n  3. small",
      [{ question: 1, text: "reasons:\n  1. fast\n  3. small" }],
      [0, 2],
    ],
    [
      "/answer N TEXT lines",
      "/answer 3 Go modules\n/answer 1 sqlite",
      [
        { question: 0, text: "sqlite", option: "SQLite", optionIndex: 0 },
        { question: 2, text: "Go modules", option: "Go modules", optionIndex: 1 },
      ],
      [1],
    ],
    [
      "/answer later in the body",
      "2. ok\n/answer 1 2",
      [
        { question: 0, text: "2", option: "Postgres", optionIndex: 1 },
        { question: 1, text: "ok" },
      ],
      [2],
    ],
    ["/answer with an out-of-range number", "/answer 9 yes", [], [0, 1, 2]],
    ["/answer without a number ends the previous answer", "2. ok\n/answer yes\nmore", [{ question: 1, text: "ok" }], [0, 2]],
    ["no numbered lines is ambiguous", "Postgres and yes", [], [0, 1, 2]],
    ["a leading command answers nothing", "/note hi\n1. SQLite", [], [0, 1, 2]],
    ["an empty answer is unanswered", "1.\n2. yes", [{ question: 1, text: "yes" }], [0, 2]],
    ["quoted numbered lines are ignored", "> 1. SQLite\n2. yes", [{ question: 1, text: "yes" }], [0, 2]],
    [
      "CRLF",
      "1. SQLite\r\n2. yes\r\n",
      [
        { question: 0, text: "SQLite", option: "SQLite", optionIndex: 0 },
        { question: 1, text: "yes" },
      ],
      [2],
    ],
  ])("%s", (_name, body, answers, unanswered) => {
    const reply = parseReply(body, three);
    expect(reply.answers).toEqual(answers);
    expect(reply.unanswered).toEqual(unanswered);
  });
});

describe("parseReply edge cases", () => {
  it("returns the visible text", () => {
    expect(parseReply("> quoted\nPostgres  ", [db]).visible).toBe("Postgres");
  });

  it.each([
    ["empty", ""],
    ["whitespace", "  \n\t\n"],
    ["only a marker", "<!-- escalation:ask:v1 eyJ2IjoxfQ -->"],
  ])("an %s body answers nothing", (_name, body) => {
    expect(parseReply(body, [db, free])).toEqual({ answers: [], unanswered: [0, 1], visible: "", verdict: { kind: "answers" } });
  });

  it("no questions gives no answers", () => {
    expect(parseReply("1. yes", [])).toEqual({ answers: [], unanswered: [], visible: "1. yes", verdict: { kind: "answers" } });
  });

  it("leaves out optional fields that do not apply", () => {
    const [answer] = parseReply("just text", [free]).answers;
    expect(Object.keys(answer!)).toEqual(["question", "text"]);
  });
});

describe("optionsNamed", () => {
  it.each<[string, string, string[], number[]]>([
    ["none", "use files", ["SQLite", "Postgres"], []],
    ["one, anywhere, in any case", "I think sqlite", ["SQLite", "Postgres"], [0]],
    ["two", "postgres rather than SQLite", ["SQLite", "Postgres"], [0, 1]],
    ["not inside a longer word", "Golang or PostgreSQL", ["Go", "Postgres"], []],
    ["a label inside a longer label that is named counts once", "Go modules please", ["Go", "Go modules"], [1]],
    ["both when both appear on their own", "Go, or Go modules", ["Go", "Go modules"], [0, 1]],
  ])("%s", (_name, text, options, expected) => {
    expect(optionsNamed(text, options)).toEqual(expected);
  });
});

describe("option numbers said as such", () => {
  it.each<[string, string, ReturnType<typeof matchOption>]>([
    ["Option N", "Option 2", { option: "Postgres", optionIndex: 1 }],
    ["option N in lower case", "option 1", { option: "SQLite", optionIndex: 0 }],
    ["option #N", "option #2", { option: "Postgres", optionIndex: 1 }],
    ["Option N then words", "Option 2 because it scales", { option: "Postgres", optionIndex: 1, note: "because it scales" }],
    ["Option N, then words", "Option 1, embedded", { option: "SQLite", optionIndex: 0, note: "embedded" }],
    ["(N)", "(2)", { option: "Postgres", optionIndex: 1 }],
    ["(N) then words", "(1) keep it small", { option: "SQLite", optionIndex: 0, note: "keep it small" }],
    ["emphasised Option N", "**Option 2**", { option: "Postgres", optionIndex: 1 }],
    ["#N is an issue reference, not an option", "#2", undefined],
    ["an out-of-range Option N", "Option 7", undefined],
    ["Option N followed by a word character", "Option 2b", undefined],
    ["Option N.M is not an option number", "option 1.5", undefined],
    ["Option N naming a rival", "Option 1 or Postgres", undefined],
  ])("%s", (_name, text, expected) => {
    expect(matchOption(text, db)).toEqual(expected);
  });

  it("an option whose label is 'Option N' is chosen by its label first", () => {
    expect(matchOption("Option 2", q("Which?", ["Option 2", "Option 1"]))).toEqual({ option: "Option 2", optionIndex: 0 });
  });

  it("Option N on a numbered line of several questions", () => {
    expect(parseReply("1. Option 2\n2. fine", [db, free]).answers.map((a) => a.option ?? a.text)).toEqual(["Postgres", "fine"]);
  });
});

describe("replies that address the app", () => {
  const app = ["escalation[bot]", "escalation"];
  it.each<[string, string, string]>([
    ["@slug N", "@escalation 2", "Postgres"],
    ["@slug[bot] N", "@escalation[bot] 2", "Postgres"],
    ["any case", "@Escalation 1", "SQLite"],
    ["@slug answer: label", "@escalation answer: SQLite", "SQLite"],
    ["@slug, label", "@escalation, postgres", "Postgres"],
    ["@slug: Option N", "@escalation: Option 1", "SQLite"],
    ["@slug /answer N", "@escalation /answer 2", "Postgres"],
    ["emphasised mention", "**@escalation** 2", "Postgres"],
  ])("%s chooses the option", (_name, body, option) => {
    const reply = parseReply(body, [db], app);
    expect(reply.verdict).toEqual({ kind: "answers" });
    expect(reply.answers[0]?.option).toBe(option);
  });

  it("the mention is not part of the free text", () => {
    expect(parseReply("@escalation use the files", [db], app).answers[0]).toEqual({ question: 0, text: "use the files" });
  });

  it("numbered lines after the mention", () => {
    expect(parseReply("@escalation 1. 2\n2. fine", [db, free], app).answers.map((a) => a.option ?? a.text)).toEqual(["Postgres", "fine"]);
  });

  it("without the app's names, a mention of it is a mention of someone else", () => {
    expect(parseReply("@escalation 2", [db]).verdict).toEqual({ kind: "discussion", why: "addressed to someone else" });
  });
});

describe("replies that are not answers", () => {
  const app = ["escalation[bot]", "escalation"];
  it.each([
    ["👍", "👍"],
    ["👍 with a skin tone", "👍🏽"],
    ["👎", "👎"],
    ["several emoji", "🎉 🚀"],
    ["a ZWJ emoji", "🧑‍💻"],
    ["+1", "+1"],
    ["-1", "-1"],
    ["+1!", "+1!"],
    ["a shortcode", ":+1:"],
    ["+1 and an emoji", "+1 👍"],
    ["the app's mention and a reaction", "@escalation 👍"],
  ])("%s chooses nothing on a question with options", (_name, body) => {
    const reply = parseReply(body, [db], app);
    expect(reply.answers).toEqual([]);
    expect(reply.verdict).toEqual({ kind: "not an answer", why: "a reaction" });
  });

  it.each([
    ["someone's mention", "@alice"],
    ["several mentions", "@alice @bob"],
    ["a team mention", "@acme/db-team"],
    ["the app's mention", "@escalation"],
    ["the app's bot mention", "@escalation[bot]"],
  ])("only %s answers nothing", (_name, body) => {
    expect(parseReply(body, [db], app).verdict).toEqual({ kind: "not an answer", why: "only mentions" });
    expect(parseReply(body, [free], app).verdict).toEqual({ kind: "not an answer", why: "only mentions" });
  });

  it("a reaction answers a question without options, as written", () => {
    expect(parseReply("👍", [free], app).answers).toEqual([{ question: 0, text: "👍" }]);
  });

  it("+10 and 1+1 are not reactions", () => {
    expect(parseReply("+10", [db], app).verdict).toEqual({ kind: "answers" });
    expect(parseReply("1+1", [db], app).verdict).toEqual({ kind: "answers" });
  });
});

describe("discussion", () => {
  const app = ["escalation[bot]", "escalation"];
  it.each<[string, string, string]>([
    ["a comment that starts with someone else's mention", "@alice do we need this?", "addressed to someone else"],
    ["one addressed to someone else that names an option", "@alice I'd pick 2", "addressed to someone else"],
    ["one addressed to a team", "@acme/db-team thoughts on SQLite", "addressed to someone else"],
    ["/discuss", "/discuss I'd rather wait for Bob", "/discuss"],
    ["/discuss alone", "/discuss", "/discuss"],
    ["a question that chooses no option", "Do we need a database at all?", "a question"],
    ["a question naming an option without choosing it", "Is SQLite fast enough?", "a question"],
    ["a full-width question mark", "データベースは必要ですか？", "a question"],
  ])("%s", (_name, body, why) => {
    const reply = parseReply(body, [db], app);
    expect(reply.answers).toEqual([]);
    expect(reply.unanswered).toEqual([0]);
    expect(reply.verdict).toEqual({ kind: "discussion", why });
  });

  it("a mention later in the comment does not make it discussion", () => {
    expect(parseReply("2, as @alice said", [db], app).answers[0]?.option).toBe("Postgres");
  });

  it("a question that chooses an option is an answer", () => {
    expect(parseReply("SQLite, or is that too small?", [db], app).answers[0]?.option).toBe("SQLite");
  });

  it("a question to a question without options is an answer", () => {
    expect(parseReply("Why not both?", [free], app).answers).toEqual([{ question: 0, text: "Why not both?" }]);
  });

  it("prose that names no option and asks nothing is free text", () => {
    const reply = parseReply("use whatever the team already runs", [db], app);
    expect(reply.verdict).toEqual({ kind: "answers" });
    expect(reply.answers).toEqual([{ question: 0, text: "use whatever the team already runs" }]);
  });
});

describe("code blocks", () => {
  it("a fenced REPL transcript is part of the free text", () => {
    const body = "It fails like this:\n\n```python\n>>> import db\n>>> db.open()\nError\n```";
    expect(parseReply(body, [free]).answers[0]?.text).toBe(body);
  });
});
