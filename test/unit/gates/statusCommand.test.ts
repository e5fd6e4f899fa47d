import { describe, expect, it } from "vitest";
import type { Gate, HumanNote, Vote } from "../../../src/domain.js";
import type { CommentEvent } from "../../../src/payloads.js";
import { describeStatus, type StatusPorts } from "../../../src/gates/statusCommand.js";
import { common, gate, settings } from "../../support/gateFakes.js";

const event: CommentEvent = {
  ...common({ sender: "alice" }),
  kind: "comment",
  action: "created",
  comment: { id: 2001, body: "/status", url: "https://github.test/c/2001", createdAt: "2026-12-01T11:00:00Z", author: { login: "alice", type: "User" } },
};

function ports(last: Gate | undefined, over: { round?: number; notes?: number; votes?: Vote[] } = {}): StatusPorts {
  return {
    gates: { lastGate: () => Promise.resolve(last), votes: () => Promise.resolve(over.votes ?? []) },
    rounds: { currentRound: () => Promise.resolve(over.round ?? 0) },
    notes: { notes: () => Promise.resolve(Array.from({ length: over.notes ?? 0 }, () => ({}) as HumanNote)) },
  };
}

describe("describeStatus: the /status reply", () => {
  it("no question asked yet", async () => {
    expect(await describeStatus(ports(undefined, { round: 2, notes: 1 }), event, settings)).toBe(
      "**Escalation status** · round 2 · 1 note(s) from humans\nNo question has been asked on this issue.",
    );
  });

  it("an open question: each question with its options, default and whether it is answered, and who can answer", async () => {
    const open = gate({
      askedAt: Date.now() - 90_000,
      ask: {
        v: 1,
        id: "ask-000001",
        kind: "question",
        round: 0,
        questions: [
          { text: "Which database?", options: ["Postgres", "SQLite"], default: "SQLite" },
          { text: "Keep the API?", options: [] },
        ],
      },
      answers: [{ question: 1, text: "yes", by: "bob", at: 1, source: "human" }],
    });
    const lines = (await describeStatus(ports(open), event, settings)).split("\n");
    expect(lines[1]).toMatch(/^Open question \(gate 1001, asked 1m 3\ds ago by @escalation\[bot\]\):$/);
    expect(lines[2]).toBe("- 1. Which database? (options: Postgres / SQLite) · default: SQLite — waiting");
    expect(lines[3]).toBe("- 2. Keep the API? — answered by @bob");
    expect(lines[4]).toBe("Who can answer: anyone allowed to steer this issue.");
  });

  it("an open approval: its tally under the repository's policy", async () => {
    const approval = gate({ ask: { v: 1, id: "ask-000002", kind: "approval", round: 0, questions: [{ text: "Deploy to production?", options: [] }] } });
    const votes: Vote[] = [{ login: "bob", vote: "approve", at: 1, commentId: 5 }];
    const text = await describeStatus(ports(approval, { votes }), event, settings);
    expect(text.split("\n").at(-1)).toBe("- Deploy to production? — Approvals 1/1: @bob (policy any-deny)");
  });

  it("a settled question: its state, who answered and why it closed", async () => {
    const text = await describeStatus(ports(gate({ state: "superseded", answeredBy: "bob", closedReason: "a newer question was asked" })), event, settings);
    expect(text.split("\n")[1]).toBe("Last question (gate 1001) is **superseded**, answered by @bob (a newer question was asked).");
  });
});
