import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/env.js";
import { configError, minimal } from "../../support/configEnv.js";

describe("AGENT_PLACEHOLDERS: checked when the config loads", () => {
  it("accepts every documented placeholder", () => {
    const command = "agent {taskFile} {repo} {issue} {round} {workdir}";
    expect(loadConfig(minimal({ AGENT_COMMAND: command })).agent.command).toHaveLength(6);
  });

  it("an unknown placeholder fails at load, not at the first spawn", () => {
    const message = configError(minimal({ AGENT_COMMAND: "node agent.mjs {task}" })).message;
    expect(message).toContain("AGENT_COMMAND uses the unknown placeholder {task}");
  });
});
