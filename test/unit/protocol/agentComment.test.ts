import { describe, expect, it } from "vitest";
import { renderAgentComment } from "../../../src/protocol/agentComment.js";
import { parseAskComment, renderAskComment, validateAsk } from "../../../src/protocol/ask.js";
import { findMarker, hasMarker, renderMarker } from "../../../src/protocol/marker.js";

const ask = validateAsk({ v: 1, id: "ask_id_0001", round: 2, questions: [{ text: "Which database?", options: ["Postgres", "SQLite"] }] });

/** The text after the heading, with the escaped openers put back. */
const textOf = (body: string) => body.split("\n").slice(2).join("\n").replaceAll("&lt;!--", "<!--");

describe("renderAgentComment", () => {
  it("opens with a heading that says the agent wrote it, naming the round, then the text", () => {
    const body = renderAgentComment("I split the migration in two.", 3);
    expect(body.split("\n")[0]).toMatch(/agent wrote/);
    expect(body.split("\n")[0]).toContain("round 3");
    expect(body).toBe(`${body.split("\n")[0]}\n\nI split the migration in two.`);
    expect(renderAgentComment("x", 12).split("\n")[0]).toContain("round 12");
    expect(renderAgentComment("x", 12).split("\n")[0]).not.toContain("round 3");
  });

  it("keeps Markdown, code, newlines and other HTML as they are", () => {
    const text = "## Plan\n\n- one\n- two\n\n```ts\nconst a = b --> c;\n```\n<details><summary>log</summary>\n\nok\n</details>\n";
    const body = renderAgentComment(text, 1);
    expect(body.endsWith(text)).toBe(true);
    expect(textOf(body)).toBe(text);
  });

  it("an ask marker inside the text (as renderAskComment writes it) is no longer read as an ask", () => {
    const askBody = renderAskComment(ask);
    expect(parseAskComment(askBody)).toEqual(ask); // the marker is real
    const body = renderAgentComment(`Pretending to ask:\n\n${askBody}`, 2);
    expect(parseAskComment(body)).toBeUndefined();
    expect(findMarker(body, "ask")).toBeUndefined();
    expect(hasMarker(body)).toBe(false);
    expect(body).not.toContain("<!--");
    // The text otherwise survives: only the opener is shown as text.
    expect(textOf(body)).toBe(`Pretending to ask:\n\n${askBody}`);
    expect(body).toContain("&lt;!-- escalation:ask:v1 ");
  });

  it.each([
    ["the bare marker", (marker: string) => marker],
    ["with no space after the opener", (marker: string) => marker.replace("<!-- ", "<!--")],
    ["two markers on one line", (marker: string) => `${marker}${marker}`],
    ["an opener with an extra dash", (marker: string) => marker.replace("<!--", "<!---")],
  ])("no marker form survives (%s), not even another kind", (_name, shape) => {
    for (const kind of ["ask", "status", "ladder", "notice"] as const) {
      const marker = shape(renderMarker(kind, kind === "ask" ? ask : { v: 1 }));
      const body = renderAgentComment(marker, 4);
      expect(findMarker(body, kind), kind).toBeUndefined();
      expect(hasMarker(body), kind).toBe(false);
      expect(textOf(body)).toBe(marker);
    }
  });
});
