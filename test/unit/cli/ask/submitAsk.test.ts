import { describe, expect, it } from "vitest";
import { readAskEnv } from "../../../../src/cli/ask/askEnv.js";
import { submitAsk } from "../../../../src/cli/ask/submitAsk.js";
import { UsageError } from "../../../../src/cli/usage.js";
import { findMarker } from "../../../../src/protocol/marker.js";

const env = readAskEnv({ GITHUB_REPOSITORY: "acme/widgets", ESCALATION_ISSUE: "7", ESCALATION_ROUND: "2" });

describe("submitAsk", () => {
  it("a dry run builds the comment, with the round from the environment, and posts nothing (no token needed)", async () => {
    const result = await submitAsk({ questions: [{ text: "Which database?", options: ["SQLite", "Postgres"] }], paths: [] }, { env, dryRun: true });
    expect(result.url).toBe("");
    expect(result.body).toContain("Which database?");
    expect(result.ask).toMatchObject({ v: 1, kind: "question", round: 2, questions: [{ text: "Which database?", options: ["SQLite", "Postgres"] }] });
    expect(result.ask.paths).toBeUndefined();
    expect(findMarker(result.body, "ask")).toBeDefined();
  });

  it("refuses an ask without questions, and a bad ask, as bad usage", async () => {
    await expect(submitAsk({ questions: [] }, { env, dryRun: true })).rejects.toThrow(/At least one --question is required/);
    const bad = submitAsk({ questions: [{ text: "Which?", options: ["SQLite", "sqlite"] }] }, { env, dryRun: true });
    await expect(bad).rejects.toBeInstanceOf(UsageError);
    // The protocol's "Invalid ask: " prefix is dropped: the message starts at the field at fault.
    await expect(submitAsk({ questions: [{ text: "Which?", options: ["SQLite", "sqlite"] }] }, { env, dryRun: true })).rejects.toThrow(
      /^questions\.0\.options: option labels must differ/,
    );
  });
});
