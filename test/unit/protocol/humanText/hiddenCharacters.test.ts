import { describe, expect, it } from "vitest";
import { stripHiddenCharacters } from "../../../../src/protocol/humanText/hiddenCharacters.js";

describe("stripHiddenCharacters", () => {
  it("removes zero-width, bidi, tag and control characters and counts them; tab and line feed stay", () => {
    expect(stripHiddenCharacters("a\u200Bb\u202Ec\u{E0041}d\u0007\te\nf")).toEqual({ text: "abcd\te\nf", removed: 4 });
  });

  it("leaves visible text alone", () => {
    expect(stripHiddenCharacters("Postgres, é 🙋")).toEqual({ text: "Postgres, é 🙋", removed: 0 });
  });
});
