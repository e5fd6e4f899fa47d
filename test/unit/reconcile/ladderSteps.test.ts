import { describe, expect, it } from "vitest";
import { renderSignedMarker } from "../../../src/protocol/marker.js";
import { renderOverdueComment, renderReminderComment } from "../../../src/protocol/reminders.js";
import { ladderStepsShown } from "../../../src/reconcile/ladderSteps.js";
import { testSeal } from "../../support/seal.js";

const APP = "escalation[bot]";
const seal = testSeal(7);
const reminder = (gateId: string, step: number, s = seal) =>
  renderReminderComment({ gateId, step, people: ["@alice"], questions: ["Which database?"], waitedSeconds: 3600, askUrl: "https://x/1" }, s);
const by = (login: string | null, body: string | undefined) => ({ body, user: login === null ? null : { login, type: "Bot" } });
const isApp = (login: string) => login === APP;

describe("ladderStepsShown: the reminder steps an issue already shows", () => {
  it("collects each gate's steps from the app's signed markers", () => {
    const overdue = renderOverdueComment({ gateId: "100", step: 2, questions: ["Which database?"], at: "2025-01-02T12:00:00Z", askUrl: "https://x/1" }, seal);
    const shown = ladderStepsShown([by(APP, reminder("100", 0)), by(APP, reminder("200", 0)), by(APP, reminder("100", 1)), by(APP, overdue)], isApp, seal);
    expect(shown).toEqual(
      new Map([
        ["100", [0, 1, 2]],
        ["200", [0]],
      ]),
    );
  });

  it("ignores another account's copy, another issue's seal, an unreadable marker and an empty body", () => {
    const unreadable = renderSignedMarker("ladder", { v: 1, gate: "100", step: "first" }, seal);
    const comments = [
      by("mallory", reminder("100", 0)),
      by(APP, reminder("100", 1, testSeal(8))),
      by(APP, unreadable),
      by(APP, undefined),
      by(null, reminder("100", 2)),
    ];
    expect(ladderStepsShown(comments, isApp, seal)).toEqual(new Map());
  });
});
