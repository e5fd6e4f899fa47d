import { describe, expect, it } from "vitest";
import { changedByAnother } from "../../../src/gates/foreignChanges.js";

const change = (sender: string, author: string) => ({
  sender: { login: sender, type: "User" },
  comment: { id: 1, body: "", url: "u", createdAt: "", author: { login: author, type: "User" } },
});

describe("changedByAnother: whose edit or deletion a webhook reports", () => {
  it("is the author's own change when GitHub's sender is the comment's author (logins compare case-insensitively)", () => {
    expect(changedByAnother(change("alice", "alice"))).toBe(false);
    expect(changedByAnother(change("Alice", "alice"))).toBe(false);
  });

  it("is another's change when the sender is anyone else: the App's bot (the agent's token), a maintainer", () => {
    expect(changedByAnother(change("escalation[bot]", "alice"))).toBe(true);
    expect(changedByAnother(change("maintainer", "alice"))).toBe(true);
  });
});
