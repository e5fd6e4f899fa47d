import { describe, expect, it } from "vitest";
import { readAskEnvAndTarget } from "../../../../src/cli/ask/readAskEnvAndTarget.js";
import { EnvironmentError } from "../../../../src/cli/usage.js";

describe("readAskEnvAndTarget", () => {
  it("reads the environment and the target it names", () => {
    const { env, target } = readAskEnvAndTarget({ GITHUB_TOKEN: "t", GITHUB_REPOSITORY: "acme/widgets", ESCALATION_ISSUE: "7" }, {}, true);
    expect(target).toEqual({ repo: "acme/widgets", issue: 7 });
    expect(env.GITHUB_API_URL).toBe("https://api.github.com");
  });

  it("names the malformed variables and the missing ones in one EnvironmentError", () => {
    let error: unknown;
    try {
      readAskEnvAndTarget({ ESCALATION_ROUND: "first", GITHUB_REPOSITORY: "acme/widgets" }, {}, true);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).variables).toEqual(["ESCALATION_ROUND", "GITHUB_TOKEN", "ESCALATION_ISSUE"]);
  });
});
