import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../../tools/playground/markdown.js";

describe("the playground's Markdown, as GitHub shows the bot's comments", () => {
  it("renders an ask: heading, bold question, numbered options, rule, inline code, and hides the marker", () => {
    const body = [
      "### 🙋 The agent needs your input",
      "",
      "**Which database should the cache use?**",
      "1. Postgres",
      "2. SQLite _(default)_",
      "",
      "---",
      "Reply with the option's number, or `/defaults`.",
      "",
      '<!-- escalation:ask {"questions":[{"text":"x"}]} -->',
    ].join("\n");
    expect(renderMarkdown(body)).toBe(
      [
        "<h3>🙋 The agent needs your input</h3>",
        "<p><strong>Which database should the cache use?</strong></p>",
        "<ol><li>Postgres</li><li>SQLite <em>(default)</em></li></ol>",
        "<hr>",
        "<p>Reply with the option&#39;s number, or <code>/defaults</code>.</p>",
      ].join("\n"),
    );
  });

  it("renders the status comment's table and list, and links only http(s) URLs", () => {
    const body =
      "| Round | Agent run |\n| --- | --- |\n| 0 | 42s, **finished** |\n\n- asked at https://example.invalid/i/1#c-2.\n- [docs](javascript:alert(1)) and [ok](http://127.0.0.1/x?a=1&b=2)";
    expect(renderMarkdown(body)).toBe(
      [
        "<table><thead><tr><th>Round</th><th>Agent run</th></tr></thead><tbody><tr><td>0</td><td>42s, <strong>finished</strong></td></tr></tbody></table>",
        '<ul><li>asked at <a href="https://example.invalid/i/1#c-2">https://example.invalid/i/1#c-2</a>.</li><li>[docs](javascript:alert(1)) and <a href="http://127.0.0.1/x?a=1&amp;b=2">ok</a></li></ul>',
      ].join("\n"),
    );
  });

  it("shows HTML as text, in paragraphs, quotes and code, and keeps a comment's line breaks", () => {
    expect(renderMarkdown('<img src=x onerror="alert(1)">\nsecond <b>line</b>')).toBe(
      "<p>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;<br>\nsecond &lt;b&gt;line&lt;/b&gt;</p>",
    );
    expect(renderMarkdown("> quoted *text* <i>\n\n```\n<script>x</script>\n```")).toBe(
      "<blockquote><p>quoted <em>text</em> &lt;i&gt;</p></blockquote>\n<pre><code>&lt;script&gt;x&lt;/script&gt;</code></pre>",
    );
    expect(renderMarkdown("`<b>` in code, ~~gone~~ and __strong__")).toBe("<p><code>&lt;b&gt;</code> in code, <del>gone</del> and <strong>strong</strong></p>");
  });

  it("hides every marker, also one over several lines, and an unclosed fence runs to the end", () => {
    expect(renderMarkdown("before <!-- a\nb --> after<!--c-->")).toBe("<p>before  after</p>");
    expect(renderMarkdown("```\nopen")).toBe("<pre><code>open</code></pre>");
  });
});
