import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chooseAgentCommand } from "../../../src/agent/agentCommand.js";
import { RECIPES } from "../../../src/agent/recipes/index.js";
import { recipeKeyWarnings } from "../../../src/agent/recipes/keyWarnings.js";
import { loadConfig } from "../../../src/config/env.js";
import { resolveRepoSettings, serverDefaults } from "../../../src/config/repoConfig.js";
import { ConfigError } from "../../../src/errors.js";

const { privateKey: PEM } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
});
const env = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ APP_ID: "1", WEBHOOK_SECRET: "s", PRIVATE_KEY: PEM, ...over });

function problem(over: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env(over));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("loadConfig did not throw");
}

describe("AGENT_PROFILES", () => {
  it("is empty when unset or blank", () => {
    expect(loadConfig(env()).agent.profiles.size).toBe(0);
    expect(loadConfig(env({ AGENT_PROFILES: "  " })).agent.profiles.size).toBe(0);
  });

  it("maps names to argv: a template split without a shell, or a JSON argv array; placeholders kept for spawn time", () => {
    const { profiles } = loadConfig(
      env({ AGENT_PROFILES: JSON.stringify({ fast: `node "my agent.mjs" --fast {taskFile} $(whoami)`, review: ["node", "review.mjs", "{repo}#{issue}"] }) }),
    ).agent;
    expect(profiles.get("fast")).toEqual(["node", "my agent.mjs", "--fast", "{taskFile}", "$(whoami)"]);
    expect(profiles.get("review")).toEqual(["node", "review.mjs", "{repo}#{issue}"]);
  });

  it("keeps a name like __proto__ a plain entry, never an object property", () => {
    const { profiles } = loadConfig(env({ AGENT_PROFILES: '{"__proto__": "evil {taskFile}", "constructor": "x"}' })).agent;
    expect(profiles.get("__proto__")).toEqual(["evil", "{taskFile}"]);
    expect(chooseAgentCommand({ command: undefined, profiles }, "tostring")).toHaveProperty("problem");
  });

  it('maps {"recipe": name} to the recipe\'s command, and chooseAgentCommand hands the recipe to the spawn', () => {
    const agent = loadConfig(env({ AGENT_PROFILES: JSON.stringify({ claude: { recipe: "claude-code" }, codex: { recipe: "codex" }, fast: "agent" }) })).agent;
    expect(agent.profiles.get("claude")).toEqual(RECIPES.get("claude-code")!.argv);
    expect(agent.profiles.get("codex")?.slice(0, 2)).toEqual(["codex", "exec"]);
    expect([...agent.profileRecipes.keys()]).toEqual(["claude", "codex"]);
    expect(chooseAgentCommand(agent, "claude")).toEqual({ argv: RECIPES.get("claude-code")!.argv, profile: "claude", recipe: RECIPES.get("claude-code") });
    expect(chooseAgentCommand(agent, "fast")).toEqual({ argv: ["agent"], profile: "fast" });
  });

  it.each<[string, string, RegExp]>([
    [
      "an unknown recipe",
      '{"ai": {"recipe": "cursor"}}',
      /AGENT_PROFILES\.ai names the recipe "cursor", which does not exist; the recipes are "claude-code", "codex", "aider"/,
    ],
    [
      "a recipe with other keys",
      '{"ai": {"recipe": "codex", "args": []}}',
      /AGENT_PROFILES\.ai must be a command string or a JSON array of argv words, or \{"recipe": "<name>"\}/,
    ],
    ["not JSON", "fast=agent", /AGENT_PROFILES must be a JSON object/],
    ["a JSON array", '["agent"]', /AGENT_PROFILES must be a JSON object/],
    ["a name a repository could not pick", '{"Fast": "agent"}', /AGENT_PROFILES\.Fast: a profile name must be/],
    ["a misspelt placeholder", '{"fast": "agent {task}"}', /AGENT_PROFILES\.fast uses the unknown placeholder \{task\}/],
    ["an unterminated quote", '{"fast": "agent \\"x"}', /AGENT_PROFILES\.fast has an unterminated/],
    ["an empty command", '{"fast": ""}', /AGENT_PROFILES\.fast is empty/],
    ["an argv with a non-string", '{"fast": ["agent", 1]}', /AGENT_PROFILES\.fast as JSON must be a non-empty array of non-empty strings/],
    ["a number", '{"fast": 3}', /AGENT_PROFILES\.fast must be a command string or a JSON array/],
  ])("refuses %s at start-up", (_name, value, message) => {
    expect(problem({ AGENT_PROFILES: value })).toMatch(message);
  });
});

describe("chooseAgentCommand", () => {
  const profiles = new Map([["fast", ["fast-agent", "{taskFile}"]]]);

  it("without agent_profile: AGENT_COMMAND, or a status-line problem when there is none", () => {
    expect(chooseAgentCommand({ command: ["agent"], profiles }, undefined)).toEqual({ argv: ["agent"] });
    expect(chooseAgentCommand({ command: undefined, profiles }, undefined)).toEqual({
      problem: "the server has no AGENT_COMMAND configured (see README, Configuration)",
      skipped: "no AGENT_COMMAND",
    });
  });

  it("a profile the server defines replaces AGENT_COMMAND", () => {
    expect(chooseAgentCommand({ command: ["agent"], profiles }, "fast")).toEqual({ argv: ["fast-agent", "{taskFile}"], profile: "fast" });
  });

  it("an unknown profile runs nothing, not even AGENT_COMMAND, and names the defined ones in a visible comment", () => {
    const choice = chooseAgentCommand({ command: ["agent"], profiles }, "slow");
    expect(choice).not.toHaveProperty("argv");
    expect(choice).toMatchObject({ skipped: "unknown agent profile" });
    expect((choice as { comment: string }).comment).toContain("`agent_profile: slow`, but this server defines no such profile (defined: `fast`)");
  });
});

describe(".github/escalation.yml can name a profile, never a command", () => {
  const defaults = serverDefaults(loadConfig(env()));
  it.each<[string, unknown]>([
    ["command", { command: ["sh", "-c", "id"] }],
    ["args", { args: ["--yolo"] }],
    ["a profile name with shell syntax", { agent_profile: "fast; rm -rf /" }],
    ["a profile name with spaces", { agent_profile: "fast --yolo" }],
  ])("refuses %s", (_name, raw) => {
    const result = resolveRepoSettings(raw, defaults);
    expect(result.problem).toBeDefined();
    expect(result.settings.agentProfile).toBeUndefined();
  });

  it("takes a plain profile name", () => {
    expect(resolveRepoSettings({ agent_profile: "fast" }, defaults).settings.agentProfile).toBe("fast");
  });
});

describe("recipeKeyWarnings", () => {
  const agent = (passthrough: string) =>
    loadConfig(env({ AGENT_PROFILES: JSON.stringify({ claude: { recipe: "claude-code" }, codex: { recipe: "codex" } }), AGENT_ENV_PASSTHROUGH: passthrough }))
      .agent;

  it("names each recipe profile whose API key variable AGENT_ENV_PASSTHROUGH leaves out", () => {
    expect(recipeKeyWarnings(agent("ANTHROPIC_API_KEY"))).toEqual([
      'AGENT_PROFILES.codex runs the codex recipe, but AGENT_ENV_PASSTHROUGH names none of CODEX_API_KEY: the tool gets no API key from the app\'s environment (README, "Recipes").',
    ]);
    expect(recipeKeyWarnings(agent("CODEX_API_KEY, ANTHROPIC_API_KEY"))).toEqual([]);
  });
});
