import { describe, expect, it } from "vitest";
import { elementEnd, isHidden, parseTag } from "../../../../src/protocol/humanText/htmlTag.js";

describe("parseTag", () => {
  it("reads the name, whether it closes, and the attributes (first one wins, values decoded)", () => {
    const text = `x <SPAN Hidden title='a' title="b" style="display&colon;none">`;
    const tag = parseTag(text, 2);
    expect(tag).toMatchObject({ name: "span", closing: false, end: text.length });
    expect(Object.fromEntries(tag!.attributes)).toEqual({ hidden: "", title: "a", style: "display:none" });
    expect(parseTag("</p>", 0)).toMatchObject({ name: "p", closing: true, end: 4 });
  });

  it("is no tag when `<` is not followed by a letter", () => {
    expect(parseTag("a < b", 2)).toBeUndefined();
    expect(parseTag("<3", 0)).toBeUndefined();
  });

  it("runs an unterminated tag to the end of the text", () => {
    expect(parseTag(`<img alt="x`, 0)?.end).toBe(11);
  });
});

describe("isHidden", () => {
  it.each<[string, boolean]>([
    ["<span hidden>", true],
    [`<div aria-hidden="TRUE">`, true],
    [`<input type=hidden>`, true],
    [`<p style="opacity: 0">`, true],
    [`<p style="font-size:0px !important">`, true],
    [`<p style="/* x */ display : none">`, true],
    ["<script>", true],
    [`<p style="opacity: 0.5">`, false],
    [`<div aria-hidden="false">`, false],
    ["<b>", false],
  ])("%s → %s", (text, hidden) => {
    expect(isHidden(parseTag(text, 0)!)).toBe(hidden);
  });
});

describe("elementEnd", () => {
  it("finds the matching end tag past nested elements of the same name", () => {
    const s = "<div hidden><div>x</div> y</div>z";
    expect(s.slice(elementEnd(s, parseTag(s, 0)!))).toBe("z");
  });

  it("ends raw text at the first end tag, and an unclosed element at the end of the text", () => {
    const script = "<script><script></script>z";
    expect(script.slice(elementEnd(script, parseTag(script, 0)!))).toBe("z");
    expect(elementEnd("<span hidden>rest", parseTag("<span hidden>rest", 0)!)).toBe(17);
  });
});
