import { describe, expect, it } from "vitest";
import { QUOTE_CLOSE, QUOTE_OPEN, applyBlockquotes } from "../../../../src/protocol/humanText/blockquotes.js";

describe("applyBlockquotes", () => {
  it("turns the text between the markers into '> ' lines", () => {
    expect(applyBlockquotes(`before${QUOTE_OPEN}quoted\nmore${QUOTE_CLOSE}after`)).toBe("before\n> quoted\n> more\nafter");
  });

  it("leaves text without markers as it is", () => {
    expect(applyBlockquotes("plain\ntext")).toBe("plain\ntext");
  });
});
