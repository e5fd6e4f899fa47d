import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import { questionsFrom } from "../../../../src/cli/ask/questionFlags.js";
import { UsageError } from "../../../../src/cli/usage.js";

const tokens = (args: string[]) =>
  parseArgs({
    args,
    options: {
      question: { type: "string", multiple: true },
      option: { type: "string", multiple: true },
      default: { type: "string", multiple: true },
      timeout: { type: "string", multiple: true },
    },
    tokens: true,
  }).tokens;

describe("questionsFrom", () => {
  it("gives --option, --default and --timeout to the last --question; a --timeout before any question is the ask's", () => {
    const drafts = questionsFrom(
      tokens(["--timeout", "1h", "--question", "Which?", "--option", "a", "--option", "b", "--default", "b", "--question", "Why?", "--timeout", "30m"]),
    );
    expect(drafts).toEqual({
      askTimeout: 3600,
      questions: [
        { text: "Which?", options: ["a", "b"], default: "b" },
        { text: "Why?", options: [], timeoutSeconds: 1800 },
      ],
    });
  });

  it.each<[string[], RegExp]>([
    [["--option", "a"], /--option must follow the --question/],
    [["--default", "a"], /--default must follow the --question/],
  ])("%j before any --question is a UsageError", (args, message) => {
    expect(() => questionsFrom(tokens(args))).toThrow(UsageError);
    expect(() => questionsFrom(tokens(args))).toThrow(message);
  });
});
