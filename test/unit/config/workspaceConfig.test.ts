import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/env.js";
import { resolveRepoSettings, serverDefaults } from "../../../src/config/repoConfig.js";
import { agentWorkspacePermissions, APP_CHECKOUT_PERMISSIONS } from "../../../src/round/workspace.js";

const { privateKey: PEM } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
});
const env = (extra: Record<string, string> = {}) => loadConfig({ APP_ID: "1", WEBHOOK_SECRET: "s", PRIVATE_KEY: PEM, DATA_DIR: "/srv/escalation", ...extra });
const defaults = serverDefaults(env());

describe("the workspace's settings", () => {
  it("is on by default, under DATA_DIR, with limits of 100 MiB and 10,000 files", () => {
    expect(env().workspace).toEqual({ enabled: true, root: "/srv/escalation/workspaces", maxBytes: 100 * 1024 * 1024, maxFiles: 10_000 });
    expect(defaults.workspace).toEqual({ enabled: true, branch: "escalation/issue-{issue}", pullRequest: "app" });
  });

  it("reads AGENT_WORKSPACE, WORKSPACE_ROOT and the limits, and names a bad one", () => {
    expect(env({ AGENT_WORKSPACE: "off", WORKSPACE_ROOT: "/var/ws", WORKSPACE_MAX_BYTES: "2G", WORKSPACE_MAX_FILES: "50" }).workspace).toEqual({
      enabled: false,
      root: "/var/ws",
      maxBytes: 2 * 1024 ** 3,
      maxFiles: 50,
    });
    expect(env({ WORKSPACE_MAX_BYTES: "500000" }).workspace.maxBytes).toBe(500_000);
    expect(() => env({ WORKSPACE_MAX_BYTES: "lots" })).toThrow(/WORKSPACE_MAX_BYTES: must be a size like/);
    expect(() => env({ AGENT_WORKSPACE: "maybe" })).toThrow(/AGENT_WORKSPACE: must be true or false/);
  });

  it("takes a repository's branch template and switch", () => {
    const { settings, problem } = resolveRepoSettings({ workspace: { enabled: false, branch: "agents/{issue}-work", pull_request: false } }, defaults);
    expect(problem).toBeUndefined();
    expect(settings.workspace).toEqual({ enabled: false, branch: "agents/{issue}-work", pullRequest: "off" });
  });

  it("reads who opens the pull request: the app (true, the default), the agent, or nobody (false)", () => {
    const mode = (pull_request?: unknown) =>
      resolveRepoSettings({ workspace: pull_request === undefined ? {} : { pull_request } }, defaults).settings.workspace.pullRequest;
    expect([mode(), mode(true), mode("agent"), mode(false)]).toEqual(["app", "app", "agent", "off"]);
    expect(resolveRepoSettings({ workspace: { pull_request: "yes" } }, defaults).problem).toMatch(/workspace\.pull_request/);
  });

  it("gives the agent's token contents: read only, and pull_requests: write only where the agent opens the pull request; the app's writes", () => {
    expect(agentWorkspacePermissions("app")).toEqual({ contents: "read" });
    expect(agentWorkspacePermissions("off")).toEqual({ contents: "read" });
    expect(agentWorkspacePermissions("agent")).toEqual({ contents: "read", pull_requests: "write" });
    expect(APP_CHECKOUT_PERMISSIONS).toEqual({ contents: "write" });
  });

  it("cannot turn the workspace on where the server turned it off", () => {
    const off = serverDefaults(env({ AGENT_WORKSPACE: "off" }));
    expect(resolveRepoSettings({ workspace: { enabled: true } }, off).settings.workspace.enabled).toBe(false);
  });

  it.each<[string, unknown, RegExp]>([
    ["a branch without {issue}", { workspace: { branch: "escalation/work" } }, /workspace\.branch: must contain \{issue\}/],
    ["a branch git refuses", { workspace: { branch: "escalation/../{issue}" } }, /workspace\.branch: must be a valid branch name/],
    ["a branch ending in .lock", { workspace: { branch: "issue-{issue}.lock" } }, /workspace\.branch/],
    ["a non-boolean switch", { workspace: { enabled: "yes" } }, /workspace\.enabled/],
    ["an unknown key", { workspace: { depth: 1 } }, /depth/],
  ])("refuses %s, naming the key, and keeps the defaults", (_name, raw, message) => {
    const result = resolveRepoSettings(raw, defaults);
    expect(result.problem).toMatch(message);
    expect(result.settings.workspace).toEqual(defaults.workspace);
  });
});
