import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/env.js";
import { ConfigError } from "../../../src/errors.js";

const { privateKey: PEM } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
});
const env = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ APP_ID: "1", WEBHOOK_SECRET: "s", PRIVATE_KEY: PEM, ...over });

describe("loadConfig: AGENT_SANDBOX", () => {
  it("is bwrap by default on Linux, with no extra binds", () => {
    expect(loadConfig(env(), "linux").sandbox).toEqual({ mode: "bwrap", binds: [] });
  });

  it("must be chosen elsewhere: the error says to set AGENT_SANDBOX=none", () => {
    expect(() => loadConfig(env(), "darwin")).toThrow(ConfigError);
    expect(() => loadConfig(env(), "darwin")).toThrow(/AGENT_SANDBOX.*darwin.*Set AGENT_SANDBOX=none/);
    expect(loadConfig(env({ AGENT_SANDBOX: "none" }), "darwin").sandbox.mode).toBe("none");
  });

  it("takes bwrap or none only", () => {
    expect(() => loadConfig(env({ AGENT_SANDBOX: "docker" }), "linux")).toThrow(/AGENT_SANDBOX: must be bwrap or none/);
  });

  it("AGENT_SANDBOX_BIND is a list of absolute paths", () => {
    expect(loadConfig(env({ AGENT_SANDBOX_BIND: "/opt/tools, /home/app/.local/" }), "linux").sandbox.binds).toEqual(["/opt/tools", "/home/app/.local"]);
    expect(() => loadConfig(env({ AGENT_SANDBOX_BIND: "relative/tools" }), "linux")).toThrow(
      /AGENT_SANDBOX_BIND: must be a comma-separated list of absolute paths/,
    );
  });
});
