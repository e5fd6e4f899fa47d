import { describe, expect, it } from "vitest";
import { COMMAND_NAMES, parseCommand, type Command } from "../../../src/protocol/commands.js";

describe("parseCommand", () => {
  it.each(COMMAND_NAMES.map((name) => [name]))("reads /%s", (name) => {
    expect(parseCommand(`/${name}`)).toEqual({ name, args: "" });
  });

  it.each<[string, string, Command | undefined]>([
    ["upper case", "/Agent", { name: "agent", args: "" }],
    ["all caps", "/HELP", { name: "help", args: "" }],
    ["trailing full stop", "/agent.", { name: "agent", args: "" }],
    ["colon before the args", "/note: use tabs", { name: "note", args: "use tabs" }],
    ["args on the first line", "/note use tabs", { name: "note", args: "use tabs" }],
    ["args over several lines", "/note use tabs\nand spaces", { name: "note", args: "use tabs\nand spaces" }],
    ["args only on following lines", "/note\n\nkeep it small  ", { name: "note", args: "keep it small" }],
    ["/answer keeps its number in args", "/answer 2 yes", { name: "answer", args: "2 yes" }],
    ["leading blank lines are skipped", "\n\n   /stop  \n", { name: "stop", args: "" }],
    ["a hidden comment before the command", "<!-- x -->\n/retry", { name: "retry", args: "" }],
    ["a zero-width character inside the name", "/st\u200Bop", { name: "stop", args: "" }],
    ["CRLF line endings", "/note a\r\nb\r\n", { name: "note", args: "a\nb" }],
    ["an unknown word", "/frobnicate", { name: "unknown", raw: "frobnicate" }],
    ["an unknown word keeps its case", "/Frob now", { name: "unknown", raw: "Frob" }],
    ["a 20-letter unknown word", `/${"a".repeat(20)}`, { name: "unknown", raw: "a".repeat(20) }],
    ["a 21-letter word is prose", `/${"a".repeat(21)}`, undefined],
    ["a path is prose", "/usr/bin is wrong", undefined],
    ["a trailing slash is prose", "/agent/", undefined],
    ["a number is prose", "/2024 was fine", undefined],
    ["digits in the word", "/answer2 yes", undefined],
    ["a hyphenated word", "/stop-now", undefined],
    ["a space after the slash", "/ stop", undefined],
    ["a lone slash", "/", undefined],
    ["a command later in the text", "hello\n/stop", undefined],
    ["a command inside the first line", "please /stop", undefined],
    ["a quoted command", "> /stop\nthanks", undefined],
    ["a quoted command alone", "> /stop", undefined],
    ["a command inside an HTML comment", "<!-- /stop -->", undefined],
    ["a command in the e-mail tail", "ok\n\nOn Mon, 2 Dec 2026, A <a@b.c> wrote:\n/stop", undefined],
    ["empty body", "", undefined],
  ])("%s", (_name, body, expected) => {
    expect(parseCommand(body)).toEqual(expected);
  });
});
