import { describe, expect, it } from "vitest";
import { approvalFlags } from "../../../../src/cli/ask/approvalFlags.js";
import { UsageError } from "../../../../src/cli/usage.js";

const one = [{ text: "Deploy?", options: [] }];

describe("approvalFlags", () => {
  it("returns the approvers of an approval, none when not given", () => {
    expect(approvalFlags("approval", " 2 ", one)).toBe(2);
    expect(approvalFlags("approval", undefined, one)).toBeUndefined();
    expect(approvalFlags(undefined, undefined, [{ text: "Which?", options: ["a"], default: "a" }])).toBeUndefined();
  });

  it.each<[string | undefined, string | undefined, Array<{ text: string; options: string[]; default?: string }>, RegExp]>([
    [undefined, "2", one, /--approvers needs --kind approval \(got --kind question\)/],
    ["approval", "0", one, /--approvers must be at least 1/],
    ["approval", "two", one, /--approvers must be a positive integer \(got "two"\)/],
    ["approval", undefined, [...one, { text: "And?", options: [] }], /takes exactly one --question/],
    ["approval", undefined, [{ text: "Deploy?", options: ["yes"] }], /--option is not allowed with --kind approval/],
    ["approval", undefined, [{ text: "Deploy?", options: [], default: "yes" }], /--default is not allowed with --kind approval/],
  ])("--kind %j --approvers %j is a UsageError naming the flag", (kind, approvers, questions, message) => {
    expect(() => approvalFlags(kind, approvers, questions)).toThrow(UsageError);
    expect(() => approvalFlags(kind, approvers, questions)).toThrow(message);
  });
});
