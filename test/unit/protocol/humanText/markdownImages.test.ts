import { describe, expect, it } from "vitest";
import { replaceMarkdownImages } from "../../../../src/protocol/humanText/markdownImages.js";

const run = (text: string) => {
  const stripped = { htmlComments: 0, invisible: 0, hiddenHtml: 0, imageAlt: 0, entities: 0 };
  const hidden = { chars: 0 };
  return { text: replaceMarkdownImages(text, stripped, hidden), imageAlt: stripped.imageAlt, hiddenChars: hidden.chars };
};

describe("replaceMarkdownImages", () => {
  it("shows each image as [image], counting the alt texts dropped", () => {
    expect(run(`a ![cat](x.png "title") b ![](y.png) c ![ref][logo] d ![a [nested] one](z(1).png)`)).toEqual({
      text: "a [image] b [image] c [image] d [image]",
      imageAlt: 3,
      hiddenChars: "cat".length + "ref".length + "a [nested] one".length,
    });
  });

  it("leaves a link that is no image alone", () => {
    expect(run("[text](x.png)").text).toBe("[text](x.png)");
  });
});
