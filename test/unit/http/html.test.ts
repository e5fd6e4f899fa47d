import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "../../../src/http/html.js";

describe("escapeHtml / html``", () => {
  it("escapes the five HTML metacharacters", () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  });
  it("escapes interpolated values but not nested html``", () => {
    expect(html`<p>${"<b>"}${html`<i>${"&"}</i>`}</p>`.value).toBe("<p>&lt;b&gt;<i>&amp;</i></p>");
  });
});
