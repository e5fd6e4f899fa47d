import { describe, expect, it } from "vitest";
import { escapeMrkdwn, renderGateMessage } from "../../../src/mirror/message.js";
import { gateFixture } from "../../support/gates.js";

const texts = (blocks: Array<Record<string, unknown>>) => JSON.stringify(blocks);

describe("renderGateMessage", () => {
  it("posts the questions with options, default, timeout and a button to answer on GitHub", () => {
    const gate = gateFixture({ ask: { timeoutSeconds: 1800, context: "Migrating the cache." } });
    const { text, blocks } = renderGateMessage(gate, "Add a cache");
    expect(text).toBe("An agent needs input on acme/widgets#12: Which database should the cache use?");
    expect(blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "🙋 An agent needs input on acme/widgets#12", emoji: true } });
    expect(blocks[1]).toEqual({
      type: "section",
      text: {
        type: "mrkdwn",
        text: "*<https://github.com/acme/widgets/issues/12|acme/widgets#12 Add a cache>*\nquestion · round 0 · asked by escalation[bot]",
      },
    });
    expect(blocks[2]).toEqual({ type: "context", elements: [{ type: "mrkdwn", text: "Migrating the cache." }] });
    expect(blocks[3]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: "*Which database should the cache use?*\n1. Postgres\n2. SQLite _(default)_\n_Times out after 30m._" },
    });
    expect(blocks[4]).toEqual({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: "Answer on GitHub" }, url: gate.askUrl, action_id: "open_gate" }],
    });
  });

  it("once answered, says by whom and with what", () => {
    const gate = gateFixture({
      state: "answered",
      answeredBy: "maintainer",
      answers: [{ question: 0, text: "2", option: "SQLite", optionIndex: 1, by: "maintainer", at: 0, source: "human" }],
    });
    const { text, blocks } = renderGateMessage(gate);
    expect(text).toBe("Answered: acme/widgets#12 (Which database should the cache use?)");
    expect(blocks[0]).toMatchObject({ text: { text: "✅ Answered: acme/widgets#12" } });
    expect(texts(blocks)).toContain("*Answered by @maintainer: SQLite.*");
    expect(texts(blocks)).toContain("View on GitHub");
  });

  it("once closed, says why; defaults taken at timeout read as such", () => {
    expect(texts(renderGateMessage(gateFixture({ state: "cancelled", closedReason: "the issue was closed" })).blocks)).toContain(
      "*Cancelled: the issue was closed.*",
    );
    expect(texts(renderGateMessage(gateFixture({ state: "superseded" })).blocks)).toContain("Superseded by a newer question");
    const timedOut = gateFixture({
      state: "resumed",
      answers: [{ question: 0, text: "SQLite", option: "SQLite", by: "escalation", at: 0, source: "default" }],
    });
    expect(renderGateMessage(timedOut).blocks[0]).toMatchObject({ text: { text: "⏱️ Timed out: defaults taken: acme/widgets#12" } });
  });

  it("escapes Slack's control characters and keeps links well-formed", () => {
    expect(escapeMrkdwn("<!channel> & <@U123>")).toBe("&lt;!channel&gt; &amp; &lt;@U123&gt;");
    const gate = gateFixture({ ask: { questions: [{ text: "<!here> deploy?", options: ["a|b", "<c>"] }] } });
    const { text, blocks } = renderGateMessage(gate, "x|y>z");
    expect(text).not.toContain("<!here>");
    const all = texts(blocks);
    expect(all).not.toContain("<!here>");
    expect(all).toContain("&lt;!here&gt; deploy?");
    expect(all).toContain("<https://github.com/acme/widgets/issues/12|acme/widgets#12 x¦y&gt;z>");
    const noLink = renderGateMessage(gateFixture({ askUrl: "javascript:alert(1)" }));
    expect(texts(noLink.blocks)).not.toContain("javascript:");
    expect(noLink.blocks.some((b) => b.type === "actions")).toBe(false);
  });
});
