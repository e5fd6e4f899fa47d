import { describe, expect, it } from "vitest";
import { parsePermissions } from "../../../src/config/tokenPermissions.js";
import { configError, minimal } from "../../support/configEnv.js";

describe("parsePermissions: AGENT_TOKEN_PERMISSIONS", () => {
  it("reads name:level pairs, spaces and empty pairs ignored", () => {
    expect(parsePermissions("issues:write, contents:read ,pull_requests:write,")).toEqual({ issues: "write", contents: "read", pull_requests: "write" });
    expect(parsePermissions("")).toEqual({});
  });

  it.each<[string]>([["issues:admin"], ["issues"], ["Issues:write"], ["issues:write,:read"]])(
    "AGENT_TOKEN_PERMISSIONS=%j is a ConfigError quoting the pair",
    (value) => {
      const message = configError(minimal({ AGENT_TOKEN_PERMISSIONS: value })).message;
      expect(message).toMatch(/^AGENT_TOKEN_PERMISSIONS: ".*" must look like issues:write/);
    },
  );
});
