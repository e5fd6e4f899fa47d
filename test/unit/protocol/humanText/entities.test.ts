import { describe, expect, it } from "vitest";
import { decodeEntities } from "../../../../src/protocol/humanText/entities.js";

describe("decodeEntities", () => {
  it("decodes named, decimal and hex references once, left to right", () => {
    expect(decodeEntities("&lt;b&gt; &#60; &#x3C; &amp;lt;")).toBe("<b> < < &lt;");
  });

  it("leaves unknown names and references without a semicolon as written", () => {
    expect(decodeEntities("&bogus; &lt &AMP;")).toBe("&bogus; &lt &");
  });

  it("turns NUL, surrogates and out-of-range code points into U+FFFD", () => {
    expect(decodeEntities("&#0;&#xD800;&#x110000;")).toBe("\uFFFD\uFFFD\uFFFD");
  });

  it("counts what it decoded", () => {
    const stripped = { htmlComments: 0, invisible: 0, hiddenHtml: 0, imageAlt: 0, entities: 0 };
    decodeEntities("&zwj;&bogus;&#33;", stripped);
    expect(stripped.entities).toBe(2);
  });
});
