import { describe, expect, it } from "vitest";
import type { Ask } from "../../../src/domain.js";
import { renderAskComment } from "../../../src/protocol/ask.js";
import { stripInvisible, visibleReplyText } from "../../../src/protocol/visibleText.js";

const ask: Ask = { v: 1, id: "abcdef123", kind: "question", round: 0, questions: [{ text: "Which database?", options: ["SQLite", "Postgres"] }] };
const quotedAsk = renderAskComment(ask)
  .split("\n")
  .map((line) => `> ${line}`)
  .join("\n");

describe("visibleReplyText", () => {
  it.each([
    ["plain text is trimmed", "  Postgres  \n", "Postgres"],
    ["CRLF becomes LF", "line one\r\nline two\r\n", "line one\nline two"],
    ["a lone CR becomes LF", "line one\rline two", "line one\nline two"],
    ["trailing spaces on lines are trimmed", "one   \ntwo\t\nthree", "one\ntwo\nthree"],
    ["3+ blank lines collapse to one", "one\n\n\n\n\ntwo", "one\n\ntwo"],
    ["a single blank line stays", "one\n\ntwo", "one\n\ntwo"],
    ["whitespace-only lines count as blank", "one\n  \n\t\n   \ntwo", "one\n\ntwo"],
    ["an inline HTML comment is removed", "Postgres<!-- hidden --> please", "Postgres please"],
    ["a multi-line HTML comment is removed", "yes\n<!--\nsecret\n-->\nno doubt", "yes\n\nno doubt"],
    ["an unterminated HTML comment removes to the end", "yes <!-- and the rest\nof it", "yes"],
    ["an opener assembled around a removed comment is removed too", "a<!<!-- x -->-- b", "a"],
    ["a copy of our marker is removed", "SQLite\n<!-- escalation:ask:v1 eyJ2IjoxfQ -->", "SQLite"],
    ["quoted lines are removed", "> Which database?\nPostgres\n> more quote", "Postgres"],
    ["indented quoted lines are removed", "   > quoted\nanswer", "answer"],
    ["a quoted copy of the ask (marker included) is removed", `${quotedAsk}\n\nSQLite`, "SQLite"],
    ["'>' inside a line is kept", "a > b", "a > b"],
    ["a Gmail tail on one line", "Postgres, please.\n\nOn Mon, 2 Dec 2026 at 10:00, Alice <a@b.c> wrote:\n> Which database?\n", "Postgres, please."],
    [
      "a Gmail tail wrapped over two lines",
      "SQLite\n\nOn Mon, Dec 2, 2026 at 10:00 AM escalation[bot] <\nnotifications@github.com> wrote:\n\n> Which database?",
      "SQLite",
    ],
    [
      "a GitHub e-mail reply tail with unquoted text after it",
      "yes\r\n\r\nOn Tue, Dec 3, 2026 at 9:15 AM Bot ***@***.***> wrote:\r\n\r\nWhich database?\r\n\r\n—\r\nReply to this email directly",
      "yes",
    ],
    [
      "an Outlook tail with a rule and headers",
      "Go with SQLite\n\n________________________________\nFrom: escalation[bot] <notifications@github.com>\nSent: Monday, December 2, 2026 10:00 AM\nTo: me <me@example.com>\nSubject: Re: [o/r] Pick a database (#1)\n\nWhich database?",
      "Go with SQLite",
    ],
    ["an Outlook tail with bold headers", "Postgres\n\n**From:** Bot <b@c.d>\n**Sent:** Monday\n**Subject:** Re: x", "Postgres"],
    ["an -----Original Message----- tail", "2\n\n-----Original Message-----\nFrom: Bot <b@c.d>\nSent: Monday\n\nWhich database?", "2"],
    ["'From:' without mail headers is an answer", "From: the config file\nnot the env", "From: the config file\nnot the env"],
    ["'From:' with headers only after a blank line is an answer", "From: the config\n\nTo: you", "From: the config\n\nTo: you"],
    ["a signature after '-- ' is removed", "SQLite\n-- \nAlice\nACME Corp", "SQLite"],
    ["a signature after '--' is removed", "SQLite\n--\nAlice", "SQLite"],
    ["'---' is not a signature separator", "SQLite\n---\nmore", "SQLite\n---\nmore"],
    ["'On' prose without 'wrote:' is kept", "On second thought, Postgres.", "On second thought, Postgres."],
    ["zero-width characters are removed", "Post\u200Bgres\uFEFF", "Postgres"],
    ["an opener hidden by a zero-width character is still a comment", "yes <\u200B!-- hidden -->", "yes"],
    ["empty input", "", ""],
    ["only a marker", "<!-- escalation:status:v1 abc -->", ""],
  ])("%s", (_name, input, expected) => {
    expect(visibleReplyText(input)).toBe(expected);
  });
});

describe("visibleReplyText: code blocks keep every line", () => {
  const repl = ">>> x = 1\n>>> print(x)\n1";
  it.each([
    ["a ``` fence", `It does this:\n\n\`\`\`\n${repl}\n\`\`\``, `It does this:\n\n\`\`\`\n${repl}\n\`\`\``],
    ["a ``` fence with an info string", `\`\`\`python\n${repl}\n\`\`\`\n2`, `\`\`\`python\n${repl}\n\`\`\`\n2`],
    ["a ~~~ fence", `~~~\n${repl}\n~~~`, `~~~\n${repl}\n~~~`],
    ["a fence indented by up to 3 spaces", `   \`\`\`\n${repl}\n   \`\`\``, `   \`\`\`\n${repl}\n   \`\`\``],
    ["a longer fence closed only by as long a fence", "````\n```\n> still code\n````\n> quoted", "````\n```\n> still code\n````"],
    ["an unclosed fence runs to the end", "see\n```\n>>> x\n> y", "see\n```\n>>> x\n> y"],
    ["a ~~~ fence is not closed by ```", "~~~\n```\n> code\n~~~", "~~~\n```\n> code\n~~~"],
    ["a 4-space indented block after a blank line", "Like this:\n\n    >>> x = 1\n    >>> x\n\nthen", "Like this:\n\n    >>> x = 1\n    >>> x\n\nthen"],
    ["a tab-indented block after a blank line", "Like this:\n\n\t>>> x = 1", "Like this:\n\n\t>>> x = 1"],
    ["an indented block through a blank line", "a\n\n    > one\n\n    > two", "a\n\n    > one\n\n    > two"],
    ["an indented block at the start", "    >>> x = 1\n    >>> x", "    >>> x = 1\n    >>> x"],
    ["an indented block left first by a removed quote", "> quoted\n\n    >>> x = 1", "    >>> x = 1"],
    ["a fenced block after quoted lines", "> Which?\n```\n>>> 2\n```", "```\n>>> 2\n```"],
    ["a signature line inside code is code", "```sql\n--\nselect 1\n```\nok", "```sql\n--\nselect 1\n```\nok"],
    ["a 'wrote:' line inside code is code", "```\nOn Monday, Alice wrote:\n```", "```\nOn Monday, Alice wrote:\n```"],
  ])("%s", (_name, input, expected) => {
    expect(visibleReplyText(input)).toBe(expected);
    expect(visibleReplyText(expected)).toBe(expected);
  });

  it.each([
    ["an indented line right after a paragraph line is not code", "text\n    > quoted", "text"],
    ["a 3-space indent is not code", "text\n\n   > quoted", "text"],
    ["a quoted fence opens nothing", "> ```\n> x\nanswer", "answer"],
    ["quoted lines after a closed fence are still quotes", "```\nx\n```\n> quoted", "```\nx\n```"],
    ["the tail after a code block is still cut", "```\n>>> x\n```\n\nOn Mon, 2 Dec 2026, A <a@b.c> wrote:\n> old", "```\n>>> x\n```"],
    ["the first line loses an indentation that does not make it code", "  2", "2"],
  ])("%s", (_name, input, expected) => {
    expect(visibleReplyText(input)).toBe(expected);
  });
});

describe("stripInvisible", () => {
  const invisible = ["\u00AD", ...range(0x200b, 0x200f), ...range(0x202a, 0x202e), ...range(0x2060, 0x2064), ...range(0x2066, 0x2069), "\uFEFF"];

  it.each(invisible.map((char) => [`U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`, char]))("removes %s", (_name, char) => {
    expect(stripInvisible(`a${char}b${char}`)).toBe("ab");
  });

  it.each([
    ["ordinary spaces", "a b\tc\nd"],
    ["non-breaking space", "a\u00A0b"],
    ["U+2065 (unassigned, outside the ranges)", "a\u2065b"],
    ["emoji", "🙋 hi"],
  ])("keeps %s", (_name, text) => {
    expect(stripInvisible(text)).toBe(text);
  });
});

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
}
