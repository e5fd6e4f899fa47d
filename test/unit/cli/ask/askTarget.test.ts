import { describe, expect, it } from "vitest";
import { readAskEnv } from "../../../../src/cli/ask/askEnv.js";
import { askTarget } from "../../../../src/cli/ask/askTarget.js";
import { EnvironmentError, UsageError } from "../../../../src/cli/usage.js";

const env = readAskEnv({ GITHUB_TOKEN: "t", GITHUB_REPOSITORY: "acme/widgets", ESCALATION_ISSUE: "7" });

describe("askTarget", () => {
  it("takes the flags when given, else the agent's environment", () => {
    expect(askTarget(env, {}, true)).toEqual({ repo: "acme/widgets", issue: 7 });
    expect(askTarget(env, { repo: "acme/other", issue: "9" }, true)).toEqual({ repo: "acme/other", issue: 9 });
  });

  it("a bad flag is a UsageError", () => {
    expect(() => askTarget(env, { repo: "widgets" }, true)).toThrow(UsageError);
    expect(() => askTarget(env, { issue: "0" }, true)).toThrow(/--issue must be an issue number/);
  });

  it("names every variable the environment lacks in one EnvironmentError", () => {
    let error: unknown;
    try {
      askTarget(readAskEnv({}), {}, true);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).variables).toEqual(["GITHUB_TOKEN", "GITHUB_REPOSITORY", "ESCALATION_ISSUE"]);
    expect((error as EnvironmentError).message).toContain("(or pass --repo and --issue)");
  });

  it("needs no token when told so", () => {
    expect(askTarget(readAskEnv({ GITHUB_REPOSITORY: "acme/widgets", ESCALATION_ISSUE: "7" }), {}, false)).toEqual({ repo: "acme/widgets", issue: 7 });
  });
});
