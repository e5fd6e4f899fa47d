import { describe, expect, it } from "vitest";
import type { Vote } from "../../../src/domain.js";
import { parseVote, readVote, renderResolved, renderVoteAck, tally, tallyLine } from "../../../src/protocol/approval.js";

describe("parseVote", () => {
  it.each<[string, ReturnType<typeof parseVote>]>([
    ["approve", { vote: "approve" }],
    ["Approved.", { vote: "approve" }],
    ["LGTM!", { vote: "approve" }],
    ["lgtm", { vote: "approve" }],
    ["**approve**", { vote: "approve" }],
    ["_LGTM_", { vote: "approve" }],
    ["yes, ship it", { vote: "approve", note: "ship it" }],
    ["yes,ship it", { vote: "approve", note: "ship it" }],
    ["Y", { vote: "approve" }],
    ["y.", { vote: "approve" }],
    ["👍", { vote: "approve" }],
    ["👍🏽 nice work", { vote: "approve", note: "nice work" }],
    [":+1:", { vote: "approve" }],
    ["+1", { vote: "approve" }],
    ["approve\nthe plan reads well", { vote: "approve", note: "the plan reads well" }],
    ["/answer approve", { vote: "approve" }],
    ["deny", { vote: "deny" }],
    ["Denied.", { vote: "deny" }],
    ["REJECT", { vote: "deny" }],
    ["no - not before the freeze", { vote: "deny", note: "not before the freeze" }],
    ["Deny: the migration is not reviewed", { vote: "deny", note: "the migration is not reviewed" }],
    ["No.", { vote: "deny" }],
    ["👎", { vote: "deny" }],
    ["> approve\n\ndeny, too risky", { vote: "deny", note: "too risky" }],
    ["yesterday it worked", undefined],
    ["y'all decide", undefined],
    ["nope", undefined],
    ["not yet", undefined],
    ["n-gram", undefined],
    ["I approve", undefined],
    ["> approve", undefined],
    ["", undefined],
  ])("%j", (body, expected) => {
    expect(parseVote(body)).toEqual(expected);
  });
});

const vote = (login: string, choice: Vote["vote"], at: number, note?: string): Vote => ({ login, vote: choice, at, commentId: at, ...(note ? { note } : {}) });

describe("readVote", () => {
  const app = ["escalation[bot]", "escalation"];
  it.each<[string, string, ReturnType<typeof readVote>]>([
    ["a plain vote", "approve", { vote: "approve" }],
    ["👍", "👍", { vote: "approve" }],
    ["a vote addressed to the app", "@escalation approve", { vote: "approve" }],
    ["a vote addressed to the app's bot, with a note", "@escalation[bot] deny: not before the freeze", { vote: "deny", note: "not before the freeze" }],
    ["a comment addressed to someone else", "@alice approve?", "discussion"],
    ["only a mention", "@alice", undefined],
    ["a question", "What exactly does this deploy?", undefined],
  ])("%s", (_name, body, expected) => {
    expect(readVote(body, app)).toEqual(expected);
  });
});

describe("tally", () => {
  it("needs the required approvals from distinct people; a person counts once, with their newest vote", () => {
    const rule = { required: 2, policy: "any-deny" as const };
    expect(tally([vote("alice", "approve", 1)], rule).outcome).toBeUndefined();
    expect(tally([vote("alice", "approve", 1), vote("Alice", "approve", 2)], rule)).toMatchObject({ approvals: [{ login: "Alice" }], denials: [] });
    expect(tally([vote("alice", "approve", 1), vote("bob", "approve", 2)], rule).outcome).toBe("approved");
  });

  it("any-deny: one denial decides, whatever the approvals", () => {
    const rule = { required: 2, policy: "any-deny" as const };
    expect(tally([vote("alice", "approve", 1), vote("carol", "deny", 2)], rule).outcome).toBe("denied");
    expect(tally([vote("alice", "approve", 1), vote("alice", "deny", 2)], rule).outcome).toBe("denied");
  });

  it("majority: the side that first reaches the required count decides", () => {
    const rule = { required: 2, policy: "majority" as const };
    expect(tally([vote("alice", "approve", 1), vote("carol", "deny", 2)], rule).outcome).toBeUndefined();
    expect(tally([vote("alice", "approve", 1), vote("carol", "deny", 2), vote("dave", "deny", 3)], rule).outcome).toBe("denied");
    expect(tally([vote("alice", "approve", 1), vote("carol", "deny", 2), vote("bob", "approve", 3)], rule).outcome).toBe("approved");
  });
});

describe("acknowledgements", () => {
  const rule = { required: 2, policy: "any-deny" as const };
  it("show the tally", () => {
    const t = tally([vote("alice", "approve", 1)], rule);
    expect(tallyLine(t, rule)).toBe("Approvals 1/2: @alice");
    expect(renderVoteAck("alice", "approve", t, rule)).toBe("🗳️ @alice approved. Approvals 1/2: @alice. Waiting for 1 more approval.");
    expect(renderVoteAck("alice", "approve", t, rule, true)).toBe(
      "🗳️ @alice your approval was already counted; it counts once. Approvals 1/2: @alice. Waiting for 1 more approval.",
    );
  });

  it("say the outcome, who decided and with which note", () => {
    expect(renderResolved(tally([vote("alice", "approve", 1), vote("bob", "approve", 2)], rule), rule)).toBe(
      "✅ Approved. Approvals 2/2: @alice, @bob. The agent resumes with the approval.",
    );
    expect(renderResolved(tally([vote("alice", "approve", 1), vote("carol", "deny", 2, "not before the freeze")], rule), rule)).toBe(
      "⛔ Denied by @carol (`not before the freeze`) (policy any-deny: a single denial decides). Approvals 1/2: @alice. The agent resumes with the denial.",
    );
  });
});
