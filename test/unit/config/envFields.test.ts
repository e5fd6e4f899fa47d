import { describe, expect, it } from "vitest";
import type { AppConfig } from "../../../src/config/appConfig.js";
import { loadConfig } from "../../../src/config/env.js";
import { configError, minimal } from "../../support/configEnv.js";

describe("duration: the fields given as durations", () => {
  it.each<[string, string, (c: AppConfig) => number, number]>([
    ["AGENT_TIMEOUT", "2h", (c) => c.agent.timeoutSeconds, 7200],
    ["AGENT_TIMEOUT", "90", (c) => c.agent.timeoutSeconds, 90],
    ["AGENT_KILL_GRACE", "1m30s", (c) => c.agent.killGraceSeconds, 90],
    ["PERMISSION_CACHE_TTL", "5m", (c) => c.permissionCacheSeconds, 300],
    ["SHUTDOWN_GRACE", "1h", (c) => c.shutdownGraceSeconds, 3600],
    ["REPO_CONFIG_CACHE_TTL", "2m", (c) => c.repoConfigCacheSeconds, 120],
  ])("%s=%s", (name, value, read, seconds) => {
    expect(read(loadConfig(minimal({ [name]: value })))).toBe(seconds);
  });

  it.each<[string, string]>([
    ["AGENT_TIMEOUT", "soon"],
    ["AGENT_TIMEOUT", "0"],
    ["AGENT_KILL_GRACE", "-1s"],
    ["PERMISSION_CACHE_TTL", "1.5m"],
    ["SHUTDOWN_GRACE", "forever"],
  ])("a bad %s (%j) is a ConfigError naming it", (name, value) => {
    const message = configError(minimal({ [name]: value })).message;
    expect(message).toContain(`${name}: ${name} must be a positive duration`);
    expect(message).toContain(JSON.stringify(value));
  });
});

describe("flag: the fields given as true or false", () => {
  it.each<[string, boolean]>([
    ["1", true],
    ["TRUE", true],
    ["on", true],
    ["0", false],
    ["no", false],
    ["off", false],
    ["", false],
  ])("AGENT_KEEP_WORKDIR=%j → %s", (value, expected) => {
    expect(loadConfig(minimal({ AGENT_KEEP_WORKDIR: value })).agent.keepWorkdir).toBe(expected);
  });
});
