import { existsSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentEnv, type AgentContract } from "../../../src/agent/agentEnv.js";
import { projectRoot } from "../../../src/config/projectRoot.js";

const contract: AgentContract = {
  token: "ghs_installation_token_for_the_agent",
  apiUrl: "https://ghe.example.com/api/v3",
  repo: "octo/demo",
  issue: 42,
  round: 3,
  taskFile: "/tmp/escalation-x/task.md",
  askFile: "/tmp/escalation-x/.escalation/ask.json",
  serverUrl: "https://ghe.example.com",
  channel: { url: "http://127.0.0.1:40001", token: "round-channel-credential" },
};

const parent: NodeJS.ProcessEnv = {
  PATH: "/usr/local/bin:/usr/bin",
  HOME: "/home/app",
  LANG: "C.UTF-8",
  TZ: "UTC",
  PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
  PRIVATE_KEY_PATH: "/secrets/app.pem",
  WEBHOOK_SECRET: "hook-secret",
  REDIS_URL: "redis://:password@redis:6379",
  APP_ID: "1",
  GITHUB_TOKEN: "ghp_the_operators_own_token",
  GITHUB_REPOSITORY: "other/repo",
  ANTHROPIC_API_KEY: "sk-ant-xyz",
  NODE_OPTIONS: "--inspect",
};

describe("agentEnv", () => {
  it("sets the contract variables", () => {
    const env = agentEnv(contract, [], parent);
    expect(env).toMatchObject({
      ESCALATION_CHANNEL_URL: "http://127.0.0.1:40001",
      ESCALATION_CHANNEL_TOKEN: "round-channel-credential",
      GITHUB_TOKEN: contract.token,
      GITHUB_API_URL: contract.apiUrl,
      GITHUB_REPOSITORY: "octo/demo",
      ESCALATION_ISSUE: "42",
      ESCALATION_ASK_FILE: "/tmp/escalation-x/.escalation/ask.json",
      ESCALATION_ROUND: "3",
      ESCALATION_TASK_FILE: contract.taskFile,
      GITHUB_SERVER_URL: "https://ghe.example.com",
    });
    expect(env).not.toHaveProperty("ESCALATION_BRANCH");
  });

  it("with the workspace on, names the branch and its base and carries git's authentication for origin", () => {
    const gitAuth = {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.https://ghe.example.com/octo/demo.git.extraHeader",
      GIT_CONFIG_VALUE_0: "Authorization: Basic eA==",
    };
    const env = agentEnv({ ...contract, workspace: { branch: "escalation/issue-42", base: "main", gitAuth } }, [], parent);
    expect(env).toMatchObject({ ESCALATION_BRANCH: "escalation/issue-42", ESCALATION_BASE: "main", ...gitAuth });
  });

  it("is an allowlist: nothing else of the parent's environment reaches the agent", () => {
    const env = agentEnv(contract, [], parent);
    expect(Object.keys(env).sort()).toEqual(
      [
        "PATH",
        "HOME",
        "LANG",
        "TZ",
        "GITHUB_TOKEN",
        "GITHUB_API_URL",
        "GITHUB_REPOSITORY",
        "ESCALATION_ISSUE",
        "ESCALATION_ROUND",
        "ESCALATION_TASK_FILE",
        "ESCALATION_ASK_FILE",
        "GITHUB_SERVER_URL",
        "ESCALATION_CHANNEL_URL",
        "ESCALATION_CHANNEL_TOKEN",
      ].sort(),
    );
    for (const secret of ["PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET", "REDIS_URL", "APP_ID", "NODE_OPTIONS", "ANTHROPIC_API_KEY"]) {
      expect(env).not.toHaveProperty(secret);
    }
    const values = Object.values(env).join("\n");
    expect(values).not.toContain("hook-secret");
    expect(values).not.toContain("password@redis");
    expect(values).not.toContain("BEGIN RSA PRIVATE KEY");
  });

  it("the contract wins over the parent's own GITHUB_TOKEN and GITHUB_REPOSITORY, even when passed through", () => {
    const env = agentEnv(contract, ["GITHUB_TOKEN", "GITHUB_REPOSITORY"], parent);
    expect(env.GITHUB_TOKEN).toBe(contract.token);
    expect(env.GITHUB_REPOSITORY).toBe("octo/demo");
  });

  it("passes through the configured names that are set, and skips those that are not", () => {
    const env = agentEnv(contract, ["ANTHROPIC_API_KEY", "NOT_SET_ANYWHERE"], parent);
    expect(env.ANTHROPIC_API_KEY).toBe("sk-ant-xyz");
    expect(env).not.toHaveProperty("NOT_SET_ANYWHERE");
  });

  it.each<[string, string]>([
    ["HOME", "/home/app"],
    ["LANG", "C.UTF-8"],
    ["TZ", "UTC"],
  ])("passes the harmless %s through", (name, value) => {
    expect(agentEnv(contract, [], parent)[name]).toBe(value);
  });

  it("puts the project's bin directory, which holds `escalate`, first on PATH", () => {
    const env = agentEnv(contract, [], parent);
    const [first, ...rest] = env.PATH!.split(delimiter);
    expect(first).toBe(join(projectRoot, "bin"));
    expect(existsSync(join(first!, "escalate"))).toBe(true);
    expect(statSync(join(first!, "escalate")).mode & 0o111).not.toBe(0);
    expect(rest.join(delimiter)).toBe(parent.PATH);
  });

  it("falls back to a standard PATH when the parent has none", () => {
    const env = agentEnv(contract, [], { HOME: "/h" });
    expect(env.PATH).toBe([join(projectRoot, "bin"), "/usr/local/bin:/usr/bin:/bin"].join(delimiter));
  });

  it("defaults to process.env as the parent", () => {
    const env = agentEnv(contract, []);
    expect(env.PATH!.endsWith(process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin")).toBe(true);
    expect(env).not.toHaveProperty("REDIS_URL");
  });
});
