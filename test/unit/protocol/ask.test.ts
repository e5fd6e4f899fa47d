import { describe, expect, it } from "vitest";
import type { Ask, AskInput } from "../../../src/domain.js";
import { ProtocolError } from "../../../src/errors.js";
import { newAskId, parseAskComment, questionTimeout, renderAskComment, resolveOptionLabel, validateAsk } from "../../../src/protocol/ask.js";
import { findMarker, renderMarker } from "../../../src/protocol/marker.js";

const base = (over: Partial<AskInput> = {}): AskInput => ({
  v: 1,
  id: "ask_id_0001",
  round: 2,
  questions: [{ text: "Which database should the cache use?", options: ["Postgres", "SQLite"] }],
  ...over,
});

/** The text a human sees: everything outside HTML comments. */
const visible = (body: string) => body.replace(/<!--[\s\S]*?-->/g, "");

describe("newAskId", () => {
  it("is 12 base64url characters, accepted by the schema, and different every time", () => {
    const ids = Array.from({ length: 200 }, () => newAskId());
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
      expect(validateAsk(base({ id })).id).toBe(id);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("validateAsk", () => {
  it("applies defaults: kind question, options []", () => {
    const ask = validateAsk({ v: 1, id: "abcdef", round: 0, questions: [{ text: "Free?" }] });
    expect(ask.kind).toBe("question");
    expect(ask.questions[0]!.options).toEqual([]);
  });

  it.each<[string, string | undefined, string]>([
    ["an option number", "2", "SQLite"],
    ["the first option number", "1", "Postgres"],
    ["a label in another case", "sqlite", "SQLite"],
    ["a label with spaces around", "  postgres ", "Postgres"],
    ["free text that names no option", "whatever you think", "whatever you think"],
    ["an out-of-range number", "3", "3"],
    ["zero", "0", "0"],
  ])("resolves a default given as %s", (_name, given, expected) => {
    const ask = validateAsk(base({ questions: [{ text: "DB?", options: ["Postgres", "SQLite"], default: given }] }));
    expect(ask.questions[0]!.default).toBe(expected);
  });

  it("leaves a numeric default alone when the question has no options", () => {
    const ask = validateAsk(base({ questions: [{ text: "How many workers?", default: "2" }] }));
    expect(ask.questions[0]!.default).toBe("2");
  });

  it.each<[string, string[]]>([
    ["identical labels", ["A", "A"]],
    ["labels differing only in case", ["Postgres", "postgres"]],
    ["labels differing only in surrounding spaces", ["SQLite", " SQLite "]],
  ])("rejects %s, naming the question", (_name, options) => {
    const input = base({
      questions: [
        { text: "ok", options: ["x"] },
        { text: "DB?", options },
      ],
    });
    expect(() => validateAsk(input)).toThrow(ProtocolError);
    expect(() => validateAsk(input)).toThrow(/questions\.1\.options: option labels must differ/);
  });

  it.each<[string, unknown, RegExp]>([
    ["a wrong version", { ...base(), v: 2 }, /^Invalid ask: v:/],
    ["a short id", { ...base(), id: "abc" }, /^Invalid ask: id:/],
    ["an id with spaces", { ...base(), id: "abc def ghi" }, /^Invalid ask: id:/],
    ["no questions", { ...base(), questions: [] }, /^Invalid ask: questions:/],
    ["a blank question", { ...base(), questions: [{ text: "   " }] }, /^Invalid ask: questions\.0\.text:/],
    ["a blank option", { ...base(), questions: [{ text: "q", options: ["a", " "] }] }, /^Invalid ask: questions\.0\.options\.1:/],
    ["21 options", { ...base(), questions: [{ text: "q", options: Array.from({ length: 21 }, (_, i) => `o${i}`) }] }, /questions\.0\.options:/],
    ["a bad kind", { ...base(), kind: "Timeout!" }, /^Invalid ask: kind:/],
    ["a negative round", { ...base(), round: -1 }, /^Invalid ask: round:/],
    ["a zero timeout", { ...base(), timeoutSeconds: 0 }, /^Invalid ask: timeoutSeconds:/],
    ["not an object", "hello", /^Invalid ask: \(value\):/],
  ])("rejects %s with a ProtocolError naming the field", (_name, input, message) => {
    expect(() => validateAsk(input)).toThrow(ProtocolError);
    expect(() => validateAsk(input)).toThrow(message);
  });
});

describe("resolveOptionLabel and questionTimeout", () => {
  const q = { text: "q", options: ["Go", "Rust"] };
  it.each<[string, string | undefined]>([
    ["1", "Go"],
    ["2", "Rust"],
    ["3", undefined],
    ["RUST", "Rust"],
    ["Zig", undefined],
  ])("%j → %j", (value, label) => {
    expect(resolveOptionLabel(q, value)).toBe(label);
  });

  it("a question's own timeout wins over the ask's", () => {
    const ask = validateAsk(base({ timeoutSeconds: 3600, questions: [{ text: "a", timeoutSeconds: 60 }, { text: "b" }] }));
    expect(questionTimeout(ask, ask.questions[0]!)).toBe(60);
    expect(questionTimeout(ask, ask.questions[1]!)).toBe(3600);
    const noTimeout = validateAsk(base());
    expect(questionTimeout(noTimeout, noTimeout.questions[0]!)).toBeUndefined();
  });
});

describe("renderAskComment / parseAskComment", () => {
  const cases: Array<[string, AskInput]> = [
    ["a single free-text question", base({ questions: [{ text: "What should the README say?" }] })],
    ["a single question with options", base()],
    [
      "a single question with options, a default and a timeout",
      base({ timeoutSeconds: 7200, questions: [{ text: "DB?", options: ["Postgres", "SQLite"], default: "2" }] }),
    ],
    [
      "several questions with context, per-question timeouts and defaults",
      base({
        kind: "review",
        context: "I am migrating the cache layer.",
        timeoutSeconds: 86400,
        questions: [
          { text: "Which database?", options: ["Postgres", "SQLite"], default: "sqlite" },
          { text: "Keep the old API?", options: ["yes", "no"], timeoutSeconds: 1800 },
          { text: "Anything else?", default: "no" },
        ],
      }),
    ],
  ];

  it.each(cases)("round-trips %s", (_name, input) => {
    const ask = validateAsk(input);
    const body = renderAskComment(ask);
    expect(parseAskComment(body)).toEqual(ask);
    // Also when the comment is quoted inside other text.
    expect(parseAskComment(`> earlier\n\n${body}\n\nthanks`)).toEqual(ask);
  });

  it("hides the marker in an HTML comment at the end, invisible in the rendered text", () => {
    const ask = validateAsk(base());
    const body = renderAskComment(ask);
    const lines = body.split("\n");
    expect(lines.at(-1)).toMatch(/^<!-- escalation:ask:v1 [A-Za-z0-9_-]+ -->$/);
    expect(findMarker(body, "ask")).toEqual(ask);
    const shown = visible(body);
    expect(shown).not.toContain("escalation:");
    expect(shown).not.toContain(ask.id);
  });

  it("renders a single question with numbered options and the reply hint", () => {
    const body = visible(renderAskComment(validateAsk(base())));
    expect(body).toContain("### 🙋 The agent needs your input\n");
    expect(body).toContain("**Which database should the cache use?**");
    expect(body).toContain("1. Postgres\n2. SQLite");
    expect(body).toContain("Reply with the option's number or name");
    expect(body).not.toContain("/defaults");
    expect(body).not.toContain("_(default)_");
  });

  it("marks the default option, resolving a number to the label", () => {
    const ask = validateAsk(base({ timeoutSeconds: 5400, questions: [{ text: "DB?", options: ["Postgres", "SQLite"], default: "2" }] }));
    expect(ask.questions[0]!.default).toBe("SQLite");
    const body = visible(renderAskComment(ask));
    expect(body).toContain("1. Postgres\n2. SQLite _(default)_");
    expect(body).toContain("`/defaults` accepts every default.");
    expect(body).toContain("If nobody answers within 1h 30m, the default is taken and said here.");
  });

  it("shows a free-text default on its own line", () => {
    const body = visible(renderAskComment(validateAsk(base({ questions: [{ text: "DB?", options: ["Postgres"], default: "MySQL" }] }))));
    expect(body).toContain("_Default:_ MySQL");
    expect(body).not.toContain("_(default)_");
  });

  it("says a reminder is posted when there is a timeout but no default", () => {
    const body = visible(renderAskComment(validateAsk(base({ timeoutSeconds: 1800 }))));
    expect(body).toContain("If nobody answers within 30m, a reminder is posted.");
  });

  it("numbers several questions and gives each its effective timeout", () => {
    const ask = validateAsk(
      base({
        timeoutSeconds: 86400,
        context: "Context paragraph.",
        questions: [
          { text: "Which database?", options: ["Postgres", "SQLite"] },
          { text: "Keep the old API?", timeoutSeconds: 1800 },
        ],
      }),
    );
    const body = visible(renderAskComment(ask));
    expect(body).toContain("### 🙋 The agent needs your input on a few questions");
    expect(body).toContain("Context paragraph.");
    expect(body).toContain("**1. Which database?**");
    expect(body).toContain("**2. Keep the old API?**");
    const timeouts = [...body.matchAll(/_Times out after ([^.]+)\._/g)].map((m) => m[1]);
    expect(timeouts).toEqual(["1d", "30m"]);
    expect(body).toContain("`1. Postgres`");
    expect(body).toContain("/answer 2 yes");
    expect(body).not.toContain("If nobody answers within");
  });

  it("asks for free text when no question has options", () => {
    const body = visible(renderAskComment(validateAsk(base({ questions: [{ text: "Why?" }] }))));
    expect(body).toContain("Reply with a comment; its text is passed to the agent.");
  });

  it("returns undefined for a comment without an ask marker, even with a status marker", () => {
    expect(parseAskComment("Just a comment")).toBeUndefined();
    expect(parseAskComment(renderMarker("status", { v: 1, nextRound: 0, gates: [] }))).toBeUndefined();
  });

  it("throws ProtocolError for a corrupted marker", () => {
    const body = renderAskComment(validateAsk(base()));
    const corrupted = body.replace(/(escalation:ask:v1 )([A-Za-z0-9_-]{10})/, "$1AAAAAAAAAA");
    expect(corrupted).not.toBe(body);
    expect(() => parseAskComment(corrupted)).toThrow(ProtocolError);
  });

  it("throws ProtocolError for a well-formed marker whose ask is invalid", () => {
    expect(() => parseAskComment(renderMarker("ask", { v: 1, id: "abcdef", round: 0, questions: [] }))).toThrow(/Invalid ask: questions/);
    expect(() => parseAskComment(renderMarker("ask", { ...base(), questions: [{ text: "q", options: ["a", "A"] }] }))).toThrow(ProtocolError);
  });

  it("rejects an ask too large for the marker", () => {
    const questions = Array.from({ length: 20 }, (_, i) => ({ text: `${i} ${"why ".repeat(200)}`, options: ["yes", "no"] }));
    expect(() => renderAskComment(validateAsk(base({ questions })))).toThrow(/ask marker would be/);
  });

  it("the rendered ask cannot break out of its marker whatever the question says", () => {
    const ask: Ask = validateAsk(base({ questions: [{ text: "Close it? --> <!-- escalation:ask:v1 AAAA -->", options: ["a"] }] }));
    expect(parseAskComment(renderAskComment(ask))).toEqual(ask);
  });
});

describe("renderAskComment: timeouts of a single question", () => {
  // BUG (src/protocol/ask.ts, renderAskComment): for a single question only `ask.timeoutSeconds`
  // is announced ("If nobody answers within …"); a timeout set on the question itself — which is
  // what `escalate ask --question Q --default D --timeout 2h` produces, the form templates/spawn-task.md
  // tells agents to use — is never mentioned, because the per-question "_Times out after …_" line
  // is only rendered when there are several questions. The human is not told the default will be
  // taken. Expected: the effective timeout (questionTimeout) is announced for a single question too.
  it("announces a timeout set on the only question", () => {
    const ask = validateAsk(base({ questions: [{ text: "DB?", options: ["Postgres", "SQLite"], default: "2", timeoutSeconds: 7200 }] }));
    const body = visible(renderAskComment(ask));
    expect(body).toMatch(/2h/);
  });

  it("announces an ask-level timeout on a single question", () => {
    const ask = validateAsk(base({ timeoutSeconds: 7200, questions: [{ text: "DB?", options: ["Postgres", "SQLite"], default: "2" }] }));
    expect(visible(renderAskComment(ask))).toMatch(/within 2h/);
  });
});

describe("the paths an ask is about", () => {
  it("are optional, so an ask written before them still parses; given, they are shown and round-trip", () => {
    const old = validateAsk(base());
    expect(old.paths).toBeUndefined();
    expect(parseAskComment(renderAskComment(old))).toEqual(old);
    const ask = validateAsk(base({ paths: ["src/db/cache.ts", "docs/"] }));
    expect(visible(renderAskComment(ask))).toContain("_About:_ `src/db/cache.ts`, `docs/`");
    expect(parseAskComment(renderAskComment(ask))).toEqual(ask);
  });

  it("refuses paths that leave the repository or could break the comment, naming the field", () => {
    expect(() => validateAsk(base({ paths: ["../secrets"] }))).toThrow(/paths\.0: must stay inside the repository/);
    expect(() => validateAsk(base({ paths: ["a`b"] }))).toThrow(/paths\.0: must be a repository path without backticks/);
    expect(() => validateAsk(base({ paths: [] }))).toThrow(/paths/);
  });
});

describe("approval asks", () => {
  const approval = (extra: Record<string, unknown> = {}, question: Record<string, unknown> = {}) => ({
    v: 1,
    id: "approval-ask-1",
    kind: "approval",
    round: 0,
    questions: [{ text: "Deploy v2?", ...question }],
    ...extra,
  });

  it("carry the approvers count; an older ask without kind or approvers still parses", () => {
    expect(validateAsk(approval({ approvers: 2 }))).toMatchObject({ kind: "approval", approvers: 2, questions: [{ text: "Deploy v2?", options: [] }] });
    const old = parseAskComment(renderMarker("ask", { v: 1, id: "older-ask-1", round: 0, questions: [{ text: "Q?" }] }));
    expect(old).toMatchObject({ kind: "question" });
    expect(old?.approvers).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, RegExp]>([
    ["approvers on a question", { kind: "question", approvers: 2 }, {}, /approvers: only an ask of kind "approval" has approvers \(kind is "question"\)/],
    ["zero approvers", { approvers: 0 }, {}, /approvers/],
    ["too many approvers", { approvers: 21 }, {}, /approvers/],
    ["options", {}, { options: ["yes", "no"] }, /an approval has no options/],
    ["a default", {}, { default: "yes" }, /an approval has no default/],
    ["two questions", { questions: [{ text: "A?" }, { text: "B?" }] }, {}, /an approval asks exactly one question \(got 2\)/],
  ])("refuse %s", (_name, extra, question, message) => {
    expect(() => validateAsk(approval(extra, question))).toThrow(message);
  });

  it("render the question, the count and how to vote, and round-trip through the marker", () => {
    const ask = validateAsk(approval({ approvers: 2, context: "Release 2.0 is tagged.", timeoutSeconds: 86400 }));
    const body = renderAskComment(ask);
    expect(body).toContain("### 🔐 The agent asks for approval\n\nRelease 2.0 is tagged.\n\n**Deploy v2?**");
    expect(body).toContain("Needs **2 approvals** from people who may answer here; the account that asked never counts");
    expect(body).toContain("Reply `approve` (or `lgtm`, `yes`, 👍) or `deny` (or `no`, `reject`)");
    expect(body).toContain("within 1d, a reminder is posted");
    expect(parseAskComment(body)).toEqual(ask);
    expect(renderAskComment(validateAsk(approval()))).toContain("Needs the number of approvals this repository requires");
  });
});
