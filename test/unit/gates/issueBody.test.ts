import { describe, expect, it } from "vitest";
import { bodyChangedByAnother, bodyForTask, taskBody } from "../../../src/gates/issueBody.js";

describe("the issue's body in the task: only its author changes it", () => {
  const event = (sender: string, author?: string) => ({
    sender: { login: sender, type: "User" },
    issue: { number: 1, title: "t", body: "b", url: "u", isPullRequest: false, assignees: [], labels: [], ...(author ? { author } : {}) },
  });

  it("an edit by anyone but the author (the bot, a maintainer) is another's; the author's own, case aside, is not", () => {
    expect(bodyChangedByAnother(event("escalation[bot]", "alice"))).toBe(true);
    expect(bodyChangedByAnother(event("maintainer", "alice"))).toBe(true);
    expect(bodyChangedByAnother(event("Alice", "alice"))).toBe(false);
    // A deleted account wrote it: nobody left who may change it.
    expect(bodyChangedByAnother(event("alice"))).toBe(true);
  });

  it("quotes the body as shown while its author changed it last", () => {
    expect(taskBody({ body: "A" })).toEqual({ kind: "author's", text: "A" });
    expect(bodyForTask({ body: "A" })).toEqual({ body: "A" });
  });

  it("quotes the author's own last version, never the other account's, and names who changed it", () => {
    const record = { body: "FORGED", bodyEdit: { editor: "escalation[bot]", authorBody: "A" } };
    expect(taskBody(record)).toEqual({ kind: "kept", text: "A", editor: "escalation[bot]" });
    expect(bodyForTask(record)).toEqual({ body: "A", bodyChangedBy: { editor: "escalation[bot]", kept: true } });
    // An author who had left the body empty: the empty body is theirs.
    expect(bodyForTask({ body: "FORGED", bodyEdit: { editor: "x", authorBody: "" } })).toEqual({ body: "", bodyChangedBy: { editor: "x", kept: true } });
  });

  it("leaves the body out when the author's own version is unknown", () => {
    const record = { body: "FORGED", bodyEdit: { editor: "escalation" } };
    expect(taskBody(record)).toEqual({ kind: "not-theirs", editor: "escalation" });
    expect(bodyForTask(record)).toEqual({ body: "", bodyChangedBy: { editor: "escalation", kept: false } });
  });
});
