import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.js";
import { fillPlaceholders, splitCommand } from "../../../src/config/splitCommand.js";

describe("splitCommand", () => {
  it.each<[string, string[]]>([
    ["node agent.mjs {taskFile}", ["node", "agent.mjs", "{taskFile}"]],
    ["  node   agent.mjs\t--x  ", ["node", "agent.mjs", "--x"]],
    [`claude -p "fix the bug" --model 'opus 4'`, ["claude", "-p", "fix the bug", "--model", "opus 4"]],
    [`echo "" ''`, ["echo", "", ""]],
    [`a"b c"d`, ["ab cd"]],
    [`say "it's fine"`, ["say", "it's fine"]],
    [`say 'he said "hi"'`, ["say", `he said "hi"`]],
    [`say "a \\"quoted\\" word"`, ["say", `a "quoted" word`]],
    [`say 'no \\escape in single'`, ["say", "no \\escape in single"]],
    [`path\\ with\\ spaces next`, ["path with spaces", "next"]],
    [`trailing\\`, ["trailing\\"]],
    // Nothing is expanded: no shell runs.
    ["echo $HOME `id` $(rm -rf /) *.md ; ls | cat && x", ["echo", "$HOME", "`id`", "$(rm", "-rf", "/)", "*.md", ";", "ls", "|", "cat", "&&", "x"]],
    [`["node", "my agent.mjs", "{taskFile}"]`, ["node", "my agent.mjs", "{taskFile}"]],
    [`  ["x"]  `, ["x"]],
  ])("%s", (line, argv) => {
    expect(splitCommand(line)).toEqual(argv);
  });

  it.each<[string, string, RegExp]>([
    ["empty", "", /AGENT_COMMAND is empty/],
    ["only spaces", "   \t ", /AGENT_COMMAND is empty/],
    ["an unterminated double quote", `node "agent.mjs`, /AGENT_COMMAND has an unterminated " quote/],
    ["an unterminated single quote", `node 'agent.mjs`, /AGENT_COMMAND has an unterminated ' quote/],
    ["invalid JSON", `["node", `, /AGENT_COMMAND looks like a JSON array but does not parse/],
    ["an empty JSON array", "[]", /AGENT_COMMAND as JSON must be a non-empty array/],
    ["a JSON array with a number", `["node", 1]`, /non-empty array of non-empty strings/],
    ["a JSON array with an empty string", `["node", ""]`, /non-empty array of non-empty strings/],
  ])("rejects %s with a ConfigError", (_name, line, message) => {
    expect(() => splitCommand(line)).toThrow(ConfigError);
    expect(() => splitCommand(line)).toThrow(message);
  });

  it("names the setting given in its errors", () => {
    expect(() => splitCommand("", "EDITOR_COMMAND")).toThrow(/^EDITOR_COMMAND is empty/);
  });
});

describe("fillPlaceholders", () => {
  const values = { taskFile: "/tmp/w/task.md", repo: "octo/demo", issue: "7", round: "2", workdir: "/tmp/w" };

  it("fills whole words and placeholders inside words, several per word", () => {
    expect(fillPlaceholders(["agent", "{taskFile}", "--repo={repo}", "{repo}#{issue}@{round}", "plain"], values)).toEqual([
      "agent",
      "/tmp/w/task.md",
      "--repo=octo/demo",
      "octo/demo#7@2",
      "plain",
    ]);
  });

  it("does not re-expand placeholders that appear inside a value", () => {
    expect(fillPlaceholders(["{repo}"], { repo: "{issue}", issue: "7" })).toEqual(["{issue}"]);
  });

  it("does not mutate its input", () => {
    const argv = ["{issue}"];
    fillPlaceholders(argv, values);
    expect(argv).toEqual(["{issue}"]);
  });

  it("leaves braces that are not placeholders alone", () => {
    expect(fillPlaceholders(["{}", "{ repo }", `{"json":1}`], values)).toEqual(["{}", "{ repo }", `{"json":1}`]);
  });

  it.each<[string]>([["{tasks}"], ["{taskfile}"], ["--f={Repo}"]])("rejects the unknown placeholder %s, listing the known ones", (word) => {
    expect(() => fillPlaceholders([word], values)).toThrow(ConfigError);
    expect(() => fillPlaceholders([word], values)).toThrow(
      /AGENT_COMMAND uses the unknown placeholder \{\w+\}; the known ones are \{taskFile\}, \{repo\}, \{issue\}, \{round\}, \{workdir\}/,
    );
  });
});
