import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../../src/config/env.js";
import { projectRoot } from "../../../src/config/projectRoot.js";
import { PEM, configError, minimal } from "../../support/configEnv.js";

const scratch = mkdtempSync(join(tmpdir(), "escalation-env-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("loadConfig: defaults", () => {
  it("fills every documented default from the minimal environment", () => {
    const config = loadConfig(minimal());
    // toMatchObject: the settings listed here must have these defaults; new settings may be added.
    expect(config).toMatchObject({
      appId: 12345,
      privateKey: PEM,
      webhookSecret: "s3cret-hook",
      port: 3000,
      host: undefined,
      logLevel: "info",
      baseUrl: "https://api.github.com",
      redisUrl: undefined,
      redisPrefix: "escalation",
      dataDir: resolve("data"),
      agent: {
        command: undefined,
        timeoutSeconds: 30 * 60,
        concurrency: 4,
        workdirRoot: resolve(tmpdir()),
        keepWorkdir: false,
        envPassthrough: [],
        tokenPermissions: { contents: "read", issues: "read", pull_requests: "read", metadata: "read" },
        killGraceSeconds: 10,
        maxAttempts: 3,
      },
      maxRounds: 10,
      answererMinPermission: "write",
      repoConfigCacheSeconds: 60,
      labels: { awaiting: "awaiting-human", dispatch: "agent" },
      agentLogins: [],
      taskTemplatePath: resolve(projectRoot, "templates/spawn-task.md"),
      permissionCacheSeconds: 60,
      shutdownGraceSeconds: 20,
    });
    expect(existsSync(config.taskTemplatePath)).toBe(true);
  });

  it("ignores variables it does not know", () => {
    expect(() => loadConfig(minimal({ SOMETHING_ELSE: "x", PATH: "/bin" }))).not.toThrow();
  });
});

describe("loadConfig: required variables", () => {
  it.each<[string, string, RegExp]>([
    ["APP_ID", "APP_ID", /APP_ID: is required: the numeric ID of your GitHub App/],
    ["WEBHOOK_SECRET", "WEBHOOK_SECRET", /WEBHOOK_SECRET: is required/],
  ])("a missing %s is a ConfigError naming it", (_name, variable, message) => {
    const env = minimal();
    delete env[variable];
    const error = configError(env);
    expect(error.message).toMatch(message);
    expect(error.message).toContain('See README.md, "Configuration"');
  });

  it("APP_ID must be numeric", () => {
    expect(configError(minimal({ APP_ID: "my-app" })).message).toMatch(/APP_ID: must be the App's numeric ID/);
  });
});

describe("loadConfig: the private key", () => {
  it("accepts the PEM with escaped newlines, as a .env file holds it", () => {
    expect(loadConfig(minimal({ PRIVATE_KEY: PEM.replace(/\n/g, "\\n") })).privateKey).toBe(PEM);
  });

  it("accepts the PEM as base64", () => {
    expect(loadConfig(minimal({ PRIVATE_KEY: Buffer.from(PEM).toString("base64") })).privateKey).toBe(PEM);
  });

  it("reads PRIVATE_KEY_PATH", () => {
    const path = join(scratch, "app.pem");
    writeFileSync(path, PEM);
    expect(loadConfig(minimal({ PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: path })).privateKey).toBe(PEM);
  });

  it("a PRIVATE_KEY that is not a PEM is a ConfigError", () => {
    expect(configError(minimal({ PRIVATE_KEY: "not a key at all" })).message).toMatch(/PRIVATE_KEY \/ PRIVATE_KEY_PATH could not be read/);
  });

  it("a PRIVATE_KEY_PATH to no file is a ConfigError", () => {
    expect(configError(minimal({ PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: join(scratch, "missing.pem") })).message).toMatch(
      /PRIVATE_KEY \/ PRIVATE_KEY_PATH could not be read/,
    );
  });

  it("no key at all (and no .pem in the working directory) is a ConfigError saying what to set", () => {
    const empty = mkdtempSync(join(scratch, "empty-"));
    const cwd = vi.spyOn(process, "cwd").mockReturnValue(empty);
    try {
      expect(configError(minimal({ PRIVATE_KEY: undefined })).message).toMatch(/Set PRIVATE_KEY .* or PRIVATE_KEY_PATH/);
    } finally {
      cwd.mockRestore();
    }
  });
});

describe("loadConfig: GitHub Enterprise", () => {
  it.each<[NodeJS.ProcessEnv, string]>([
    [{}, "https://api.github.com"],
    [{ GHE_HOST: "" }, "https://api.github.com"],
    [{ GHE_HOST: "github.example.com" }, "https://github.example.com/api/v3"],
    [{ GHE_HOST: "github.example.com", GHE_PROTOCOL: "https" }, "https://github.example.com/api/v3"],
    [{ GHE_HOST: "127.0.0.1:3001", GHE_PROTOCOL: "http" }, "http://127.0.0.1:3001/api/v3"],
  ])("%j → %s", (extra, baseUrl) => {
    expect(loadConfig(minimal(extra)).baseUrl).toBe(baseUrl);
  });

  it("GHE_PROTOCOL must be http or https", () => {
    expect(configError(minimal({ GHE_HOST: "h", GHE_PROTOCOL: "ftp" })).message).toContain("GHE_PROTOCOL:");
  });
});

describe("loadConfig: AGENT_COMMAND", () => {
  it("splits the command without a shell and keeps placeholders for spawn time", () => {
    expect(loadConfig(minimal({ AGENT_COMMAND: `node "my agent.mjs" {taskFile} --repo={repo}` })).agent.command).toEqual([
      "node",
      "my agent.mjs",
      "{taskFile}",
      "--repo={repo}",
    ]);
  });

  it.each<[string]>([[""], ["   "]])("a blank AGENT_COMMAND (%j) means no agent", (value) => {
    expect(loadConfig(minimal({ AGENT_COMMAND: value })).agent.command).toBeUndefined();
  });

  it("an unterminated quote fails at load", () => {
    expect(configError(minimal({ AGENT_COMMAND: `node "agent.mjs` })).message).toContain("unterminated");
  });
});

describe("loadConfig: other values", () => {
  it("reads every other variable", () => {
    const config = loadConfig(
      minimal({
        PORT: "8080",
        HOST: "127.0.0.1",
        LOG_LEVEL: "debug",
        REDIS_URL: "redis://127.0.0.1:6390/2",
        REDIS_PREFIX: "esc_test-1",
        DATA_DIR: join(scratch, "data"),
        AGENT_CONCURRENCY: "2",
        AGENT_WORKDIR_ROOT: scratch,
        AGENT_KEEP_WORKDIR: "yes",
        AGENT_ENV_PASSTHROUGH: " ANTHROPIC_API_KEY , OPENAI_API_KEY,,",
        AGENT_TOKEN_PERMISSIONS: "issues:write, contents:read ,pull_requests:write",
        AGENT_LOGINS: "My-Bot[bot], Other",
        AWAITING_LABEL: " needs-human ",
        DISPATCH_LABEL: "Agent",
        TASK_TEMPLATE: join(scratch, "t.md"),
        AGENT_MAX_ATTEMPTS: "5",
        MAX_ROUNDS: "25",
        ANSWERER_MIN_PERMISSION: "maintain",
      }),
    );
    expect(config.agent.maxAttempts).toBe(5);
    expect(config.maxRounds).toBe(25);
    expect(config.answererMinPermission).toBe("maintain");
    expect(config.port).toBe(8080);
    expect(config.host).toBe("127.0.0.1");
    expect(config.logLevel).toBe("debug");
    expect(config.redisUrl).toBe("redis://127.0.0.1:6390/2");
    expect(config.redisPrefix).toBe("esc_test-1");
    expect(config.dataDir).toBe(join(scratch, "data"));
    expect(config.agent.concurrency).toBe(2);
    expect(config.agent.workdirRoot).toBe(scratch);
    expect(config.agent.keepWorkdir).toBe(true);
    expect(config.agent.envPassthrough).toEqual(["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]);
    expect(config.agent.tokenPermissions).toEqual({ issues: "write", contents: "read", pull_requests: "write" });
    expect(config.agentLogins).toEqual(["my-bot[bot]", "other"]);
    expect(config.labels).toEqual({ awaiting: "needs-human", dispatch: "Agent" });
    expect(config.taskTemplatePath).toBe(join(scratch, "t.md"));
  });
});

describe("STATE_SECRET: the key of the app's signed comment state", () => {
  const scope = { repo: "acme/widgets", issue: 1 };
  const signature = (env: NodeJS.ProcessEnv) => loadConfig(minimal(env)).stateKey.sign(scope, "status", "e30");

  it("defaults to a key derived from WEBHOOK_SECRET; a set STATE_SECRET gives another; an empty one means unset", () => {
    expect(signature({})).toBe(signature({ STATE_SECRET: "" }));
    expect(signature({ STATE_SECRET: "a-state-secret-of-32-characters!" })).not.toBe(signature({}));
    expect(signature({ STATE_SECRET: "a-state-secret-of-32-characters!" })).toBe(
      signature({ STATE_SECRET: "a-state-secret-of-32-characters!", WEBHOOK_SECRET: "another-hook" }),
    );
  });

  it("refuses one shorter than 16 characters, naming the variable", () => {
    expect(() => loadConfig(minimal({ STATE_SECRET: "short" }))).toThrow(/STATE_SECRET: must be at least 16 characters/);
  });
});

describe("loadConfig: roles", () => {
  it("one process does everything by default, its runner named after the host and pid", () => {
    const config = loadConfig(minimal());
    expect(config.role).toBe("all");
    expect(config.runnerName).toBe(`${hostname()}-${process.pid}`);
  });

  it("an app or a runner needs REDIS_URL, and says why", () => {
    for (const role of ["app", "runner"]) {
      expect(configError(minimal({ ROLE: role })).message).toMatch(new RegExp(`ROLE=${role} needs REDIS_URL: the app and its runners share one Redis`));
      expect(loadConfig(minimal({ ROLE: role, REDIS_URL: "redis://127.0.0.1:6390", RUNNER_NAME: "gpu-1" }))).toMatchObject({ role, runnerName: "gpu-1" });
    }
  });

  it("refuses an unknown role and a runner name that would not read well in a log or a status line", () => {
    expect(configError(minimal({ ROLE: "worker" })).message).toMatch(/ROLE: must be all, app or runner/);
    expect(configError(minimal({ RUNNER_NAME: "gpu 1; rm" })).message).toMatch(/RUNNER_NAME: must be 1 to 64 letters, digits or \. _ -/);
  });
});
