import { describe, expect, it } from "vitest";
import { decodeEntities } from "../../../../src/protocol/humanText/entities.js";
import { escapeMarkup } from "../../../../src/protocol/humanText/escapeMarkup.js";

describe("escapeMarkup", () => {
  it("escapes exactly what would form markup again", () => {
    expect(escapeMarkup("<b> </x> <!-- <? <^@a> a < b <3 ![x] &lt; &bogus; & x")).toBe(
      "&lt;b> &lt;/x> &lt;!-- &lt;? &lt;^@a> a < b <3 &#33;[x] &amp;lt; &bogus; & x",
    );
  });

  it("is undone by one decoding pass", () => {
    const text = "<script> &amp; ![alt](x) <https://x>";
    expect(decodeEntities(escapeMarkup(text))).toBe(text);
  });
});
