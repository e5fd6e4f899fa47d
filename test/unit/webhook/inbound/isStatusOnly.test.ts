import { describe, expect, it } from "vitest";
import { renderMarker, renderSignedMarker } from "../../../../src/protocol/marker.js";
import { testSeal } from "../../../support/seal.js";
import { asBot, commentEvent, convert } from "../../../support/webhookExamples.js";

describe("isStatusOnly: a bot's comment carrying only the app's own state is dropped", () => {
  it.each<[string]>([["created"], ["edited"]])("drops the %s status comment of a bot (the loop ignores it on every transition)", (action) => {
    const body = `### Escalation status\n\n- round 0: agent started\n\n${renderMarker("status", { v: 1, nextRound: 1, gates: [] })}`;
    expect(convert("issue_comment", commentEvent(action, asBot(body)))).toBeUndefined();
  });

  it("drops the app's own reminders like its status comment: nothing in them to act on", () => {
    const p = commentEvent("created", asBot(`⏰ Reminder\n\n${renderMarker("ladder", { v: 1, gate: "1", step: 0 })}`));
    expect(convert("issue_comment", p)).toBeUndefined();
  });

  it("drops a bot's comment carrying only a signed notice of the app, like its status comment", () => {
    const notice = `⚠️ A comment under the app's name …\n\n${renderSignedMarker("notice", { v: 1, ignored: 5 }, testSeal())}`;
    expect(convert("issue_comment", commentEvent("created", asBot(notice)))).toBeUndefined();
  });

  it("keeps a bot's comment that carries an ask marker beside a status marker", () => {
    const body = `${renderMarker("status", { v: 1, nextRound: 1, gates: [] })}\n${renderMarker("ask", { v: 1 })}`;
    expect(convert("issue_comment", commentEvent("created", asBot(body)))?.kind).toBe("comment");
  });

  it("keeps a bot's comment with a broken marker too (the loop reports it)", () => {
    expect(convert("issue_comment", commentEvent("created", asBot("<!-- escalation:ask:v1 !!! -->")))?.kind).toBe("comment");
  });
});
