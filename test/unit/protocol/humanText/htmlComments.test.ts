import { describe, expect, it } from "vitest";
import { removeComments } from "../../../../src/protocol/humanText/htmlComments.js";
import type { StrippedCounts } from "../../../../src/protocol/humanText/strippedCounts.js";

const run = (text: string) => {
  const stripped: StrippedCounts = { htmlComments: 0, invisible: 0, hiddenHtml: 0, imageAlt: 0, entities: 0 };
  const hidden = { chars: 0 };
  return { text: removeComments(text, stripped, hidden), comments: stripped.htmlComments, hiddenChars: hidden.chars };
};

describe("removeComments", () => {
  it("removes each comment and counts its characters as hidden", () => {
    expect(run("a<!-- x -->b<!--y-->c")).toEqual({ text: "abc", comments: 2, hiddenChars: 10 + 8 });
  });

  it("runs an unterminated comment to the end", () => {
    expect(run("a <!-- rest")).toEqual({ text: "a ", comments: 1, hiddenChars: 9 });
  });

  it("catches an opener assembled around a removed comment", () => {
    expect(run("<!<!-- x -->-- hidden -->shown").text).toBe("shown");
  });
});
