import { describe, expect, it } from "vitest";
import { readLadderMarker, renderOverdueComment, renderReminderComment } from "../../../src/protocol/reminders.js";
import { testSeal } from "../../support/seal.js";

const seal = testSeal();

describe("reminder-ladder comments", () => {
  it("a reminder names the people, the questions and the wait, and records its gate and step in a hidden marker", () => {
    const body = renderReminderComment(
      {
        gateId: "42",
        step: 1,
        people: ["@alice", "@acme/oncall"],
        questions: ["Which database?"],
        waitedSeconds: 5400,
        askUrl: "https://github.com/a/b/issues/1#issuecomment-42",
      },
      seal,
    );
    expect(body.split("\n")[0]).toBe(
      "⏰ Reminder for @alice @acme/oncall: the agent has been waiting 1h 30m for an answer to **Which database?** ([the question](https://github.com/a/b/issues/1#issuecomment-42)). Reply on this issue to answer it.",
    );
    expect(readLadderMarker(body, seal)).toEqual({ outcome: "valid", marker: { v: 1, gate: "42", step: 1 } });
  });

  it("the overdue notice says nothing proceeds and carries its step", () => {
    const body = renderOverdueComment({ gateId: "7", step: 2, questions: ["A?", "B?"], at: "2026-01-01T00:00:00Z", askUrl: "u" }, seal);
    expect(body).toContain("⏰ No answer by 2026-01-01T00:00:00Z: **A?**, **B?** ([the question](u)) is now **overdue**.");
    expect(readLadderMarker(body, seal)).toEqual({ outcome: "valid", marker: { v: 1, gate: "7", step: 2 } });
  });

  it("reads no step from a comment without a ladder marker, with an unsigned one, or one signed for another issue", () => {
    expect(readLadderMarker("⏰ Reminder for @alice", seal)).toEqual({ outcome: "absent" });
    expect(readLadderMarker("<!-- escalation:ladder:v1 bm90LWpzb24 -->", seal)).toEqual({ outcome: "unsigned" });
    const elsewhere = renderReminderComment({ gateId: "42", step: 0, people: [], questions: ["Q?"], waitedSeconds: 60, askUrl: "u" }, testSeal(2));
    expect(readLadderMarker(elsewhere, seal)).toEqual({ outcome: "mismatching" });
  });
});
