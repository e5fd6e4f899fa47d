import { describe, expect, it } from "vitest";
import { renderStatusTable, shortDuration } from "../../../src/cli/commands/status.js";
import { countGates, viewGate } from "../../../src/observe/gateView.js";
import { gateFixture } from "../../support/gates.js";

const T0 = Date.parse("2025-01-01T12:00:00Z");

describe("shortDuration", () => {
  it.each([
    [0, "0s"],
    [45, "45s"],
    [300, "5m"],
    [3725, "1h 2m"],
    [93784, "1d 2h"],
    [-90, "1m 30s"],
  ])("%d s → %s", (seconds, text) => expect(shortDuration(seconds)).toBe(text));
});

describe("renderStatusTable", () => {
  it("lists each gate with its questions, options, defaults, age and time left, then the counts", () => {
    const now = T0 + 2 * 3600_000;
    const gates = [
      viewGate(gateFixture({ ask: { timeoutSeconds: 3 * 3600 } }), now, "Add a cache"),
      viewGate(
        gateFixture({
          id: "9001",
          repo: "acme/api",
          issue: 3,
          askedAt: T0 + 3600_000,
          ask: {
            kind: "review",
            context: "Before merging.",
            questions: [
              { text: "Keep the old endpoint?", options: ["yes", "no"], timeoutSeconds: 600 },
              { text: "Anything else?", default: "no" },
            ],
          },
          answers: [{ question: 1, text: "ship it", by: "maintainer", at: now, source: "human" }],
        }),
        now,
      ),
    ];
    const text = renderStatusTable({ generatedAt: new Date(now).toISOString(), gates, counts: countGates(gates) });
    expect(text).toBe(
      [
        "GATE  ISSUE            KIND      AGE  TIME LEFT    LINK",
        "4711  acme/widgets#12  question  2h   1h           https://github.com/acme/widgets/issues/12#issuecomment-4711",
        '      "Add a cache"',
        "      Which database should the cache use?",
        "          1) Postgres  2) SQLite (default)",
        "9001  acme/api#3       review    1h   overdue 50m  https://github.com/acme/api/issues/3#issuecomment-9001",
        "      Before merging.",
        "      Q1. Keep the old endpoint?  (overdue 50m)",
        "          1) yes  2) no",
        "      Q2. Anything else?",
        "          default: no",
        "          answered by @maintainer: ship it",
        "",
        "2 open: 1 waiting, 1 overdue, 0 without timeout, 1 partly answered",
      ].join("\n"),
    );
  });

  it("shows a gate whose reminder ladder ran out as overdue, and counts it", () => {
    const now = Date.parse("2025-01-01T13:00:00Z");
    const gates = [viewGate({ ...gateFixture({ id: "77" }), overdueAt: now - 60_000 }, now)];
    const text = renderStatusTable({ generatedAt: new Date(now).toISOString(), gates, counts: countGates(gates) });
    expect(text).toMatch(/^77 +acme\/widgets#12 +question +\S+ +overdue \(reminders ran out\) +https:/m);
    expect(text).toContain("1 open: 0 waiting, 1 overdue");
  });

  it("says so when nothing is open", () => {
    expect(renderStatusTable({ generatedAt: "", gates: [], counts: countGates([]) })).toBe(
      "No open gates.\n\n0 open: 0 waiting, 0 overdue, 0 without timeout, 0 partly answered",
    );
  });
});
