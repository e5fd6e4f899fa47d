import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/config/projectRoot.js";
import { parseAskComment } from "../../src/protocol/ask.js";
import { agentGitEnv } from "../../src/workspace/gitCredentials.js";
import { ensureBuilt } from "../support/build.js";
import { startLoop, waitFor, type Loop } from "../support/harness.js";

const STAND_INS = resolve("test/support/agents/stand-ins");
const ESCALATE = join(projectRoot, "bin", "escalate");
const PROMPT = "Carry out the task given on standard input.";

/** What test/support/agents/stand-ins/standIn.mjs recorded in one round. */
interface RoundRecord {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  task: string;
  files: Record<string, string>;
  asked?: { isError: boolean; text: string };
}

/** The variables every agent gets (src/agent/agentEnv.ts) with the workspace on, whatever the recipe. */
const CONTRACT = [
  "PATH",
  "GITHUB_TOKEN",
  "GITHUB_API_URL",
  "GITHUB_REPOSITORY",
  "ESCALATION_ISSUE",
  "ESCALATION_ROUND",
  "ESCALATION_TASK_FILE",
  "ESCALATION_ASK_FILE",
  "GITHUB_SERVER_URL",
  "ESCALATION_BRANCH",
  "ESCALATION_BASE",
  "ESCALATION_CHANNEL_URL",
  "ESCALATION_CHANNEL_TOKEN",
];
const LOCALE = ["HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"];
const PASSTHROUGH = ["STAND_IN_OUT", "ANTHROPIC_API_KEY", "CODEX_API_KEY"];

interface Case {
  recipe: string;
  tool: string;
  /** The argv after the executable's name, with the config file the app wrote. */
  argv(config: string): string[];
  /** Where the tool reads its config, from its argv and environment. */
  configOf(run: RoundRecord): string;
  config: string;
  /** Variables the recipe adds, from the config file's path. */
  env(config: string): Record<string, string>;
}

const CASES: Case[] = [
  {
    recipe: "claude-code",
    tool: "claude",
    argv: (config) => [
      "-p",
      PROMPT,
      "--permission-mode",
      "acceptEdits",
      "--allowedTools",
      "Bash,mcp__escalation__ask_human",
      "--mcp-config",
      config,
      "--strict-mcp-config",
      "--output-format",
      "text",
    ],
    configOf: (run) => run.argv[run.argv.indexOf("--mcp-config") + 1]!,
    config: `${JSON.stringify({ mcpServers: { escalation: { type: "stdio", command: ESCALATE, args: ["mcp"] } } }, null, 2)}\n`,
    env: () => ({}),
  },
  {
    recipe: "codex",
    tool: "codex",
    argv: () => ["exec", "--sandbox", "workspace-write", "--skip-git-repo-check", PROMPT],
    configOf: (run) => join(run.env.CODEX_HOME!, "config.toml"),
    config: [
      "# Written by escalation for one round: the ask_human tool of `escalate mcp`.",
      "[mcp_servers.escalation]",
      `command = ${JSON.stringify(ESCALATE)}`,
      'args = ["mcp"]',
      'env_vars = ["GITHUB_TOKEN", "GITHUB_API_URL", "GITHUB_REPOSITORY", "ESCALATION_ISSUE", "ESCALATION_ROUND", "ESCALATION_CHANNEL_URL", "ESCALATION_CHANNEL_TOKEN", "https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"]',
      "",
    ].join("\n"),
    env: (config) => ({ CODEX_HOME: dirname(config) }),
  },
];

describe("the recipes end to end: a stand-in of each tool, run as the recipe runs the real one, asks and resumes", () => {
  let loop: Loop;
  let out: string;
  let root: string;
  const path = process.env.PATH;

  beforeAll(async () => {
    await ensureBuilt(); // the MCP config starts bin/escalate, which runs dist/
    out = mkdtempSync(join(tmpdir(), "esc-recipes-out-"));
    root = mkdtempSync(join(tmpdir(), "esc-recipes-root-"));
    // The app hands its own environment to agents through the allowlist: the stand-ins first on PATH.
    Object.assign(process.env, {
      PATH: `${STAND_INS}${delimiter}${process.env.PATH}`,
      STAND_IN_OUT: out,
      ANTHROPIC_API_KEY: "sk-ant-test",
      CODEX_API_KEY: "sk-codex-test",
    });
    loop = await startLoop({
      AGENT_WORKSPACE: "on",
      WORKSPACE_ROOT: root,
      AGENT_PROFILES: JSON.stringify({ ...Object.fromEntries(CASES.map((c) => [c.tool, { recipe: c.recipe }])), aider: { recipe: "aider" } }),
      AGENT_ENV_PASSTHROUGH: PASSTHROUGH.join(","),
    });
  });
  afterAll(async () => {
    await loop?.close();
    process.env.PATH = path;
    for (const name of PASSTHROUGH) delete process.env[name];
  });

  const recorded = (tool: string, repo: string, issue: number, round: number): RoundRecord | undefined => {
    const file = join(out, `${tool}-${repo.replace("/", "-")}-${issue}-round-${round}.json`);
    return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as RoundRecord) : undefined;
  };

  it.each(CASES)(
    "$recipe: round 0 edits, asks with ask_human and exits; a human answers; round 1 starts on the branch with the answer",
    async (c) => {
      const { sim } = loop;
      const repo = `acme/${c.tool}-app`;
      sim.addRepo(repo);
      // Before the app hears of the repository (and caches its settings).
      sim.setFile(repo, ".github/escalation.yml", `agent_profile: ${c.tool}\n`);
      sim.setPermission(repo, "maintainer", "write");
      await sim.seedGit(repo, { "README.md": "# app\n" });
      const issue = sim.createIssue(repo, { title: "Add a cache", body: "Cache the lookups.", author: "maintainer" }).number;
      const branch = `escalation/issue-${issue}`;
      sim.comment(repo, issue, "maintainer", "/agent");

      const ask = await waitFor(
        "the question asked through ask_human",
        () => sim.comments(repo, issue).find((c) => parseAskComment(c.body) !== undefined),
        30_000,
      );
      expect(parseAskComment(ask.body)?.questions[0]).toMatchObject({ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"] });
      const round0 = await waitFor("round 0's record", () => recorded(c.tool, repo, issue, 0)?.asked && recorded(c.tool, repo, issue, 0));
      const config = c.configOf(round0);
      expect(round0.argv).toEqual(c.argv(config));
      // The config the app wrote, in the tool's own format, outside the checkout and with no token in it.
      expect(round0.files).toEqual({ [config]: c.config });
      expect(config.startsWith(root)).toBe(false);
      expect(basename(dirname(c.recipe === "codex" ? dirname(config) : config))).toMatch(/^escalation-recipe-/);
      expect(round0.cwd.startsWith(root)).toBe(true);
      const token = round0.env.GITHUB_TOKEN!;
      expect(token).toMatch(/^ghs_/);
      expect(c.config).not.toContain(token);
      // Exactly the allowlist: the contract, the operator's passthrough (the API keys) and what the recipe sets.
      const expected = [
        ...LOCALE.filter((n) => process.env[n] !== undefined),
        ...PASSTHROUGH,
        ...CONTRACT,
        ...Object.keys(agentGitEnv("http://x", "t", { url: "http://y", credential: "c" })),
        ...Object.keys(c.env(config)),
      ];
      expect(Object.keys(round0.env).sort()).toEqual([...new Set(expected)].sort());
      expect(round0.env).toMatchObject({
        ...c.env(config),
        ANTHROPIC_API_KEY: "sk-ant-test",
        CODEX_API_KEY: "sk-codex-test",
        ESCALATION_BRANCH: branch,
        ESCALATION_ROUND: "0",
      });
      expect(round0.env.PATH!.split(delimiter).slice(0, 2)).toEqual([join(projectRoot, "bin"), STAND_INS]);
      expect(round0.task).toContain("You also have the MCP tool `ask_human`");
      expect(round0.asked).toEqual({ isError: false, text: expect.stringContaining(`posted on ${repo}#${issue}: ${ask.html_url}`) });

      // The edit is on the branch, the config is not, and the config is gone once the round ended.
      expect(await waitFor("round 0's work on the branch", () => sim.fileAt(repo, branch, "NOTES.md"), 30_000)).toBe("Asked which cache to use.\n");
      await waitFor("the round's config removed", () => !existsSync(config));
      for (const path of [basename(config), ".mcp.json", "codex-home/config.toml"]) expect(await sim.fileAt(repo, branch, path)).toBeUndefined();
      await waitFor("the awaiting-human label", () => sim.issue(repo, issue).labels.includes("awaiting-human"), 30_000);

      sim.comment(repo, issue, "maintainer", "SQLite");
      const round1 = await waitFor("round 1's record", () => recorded(c.tool, repo, issue, 1), 30_000);
      expect(round1.cwd).toBe(round0.cwd);
      expect(round1.argv).toEqual(c.argv(c.configOf(round1)));
      expect(round1.task).toContain("Which cache should the lookups use?");
      expect(round1.task).toMatch(/Answer from human @maintainer .*choosing option "SQLite"/);
      expect(readFileSync(join(round1.cwd, "NOTES.md"), "utf8")).toBe("Asked which cache to use.\n");
      expect(await waitFor("round 1's work on the branch", () => sim.fileAt(repo, branch, "DONE.md"), 30_000)).toBe("Finished in round 1.\n");
    },
    90_000,
  );

  it("aider: round 0 edits, writes the ask file and exits; the app posts the ask once and never commits the file; round 1 starts with the answer", async () => {
    const { sim } = loop;
    const repo = "acme/aider-app";
    sim.addRepo(repo);
    sim.setFile(repo, ".github/escalation.yml", "agent_profile: aider\n");
    sim.setPermission(repo, "maintainer", "write");
    await sim.seedGit(repo, { "README.md": "# app\n" });
    const issue = sim.createIssue(repo, { title: "Add a cache", body: "Cache the lookups.", author: "maintainer" }).number;
    const branch = `escalation/issue-${issue}`;
    sim.comment(repo, issue, "maintainer", "/agent");
    const asks = () => sim.comments(repo, issue).filter((c) => parseAskComment(c.body) !== undefined);

    const ask = await waitFor("the question from the ask file", () => asks()[0], 30_000);
    expect(parseAskComment(ask.body)).toMatchObject({ round: 0, questions: [{ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"] }] });
    // Posted as `escalate ask` would post it: with the agent's token, so as the App's bot.
    expect(ask.user.login).toBe(sim.botLogin);
    const round0 = recorded("aider", repo, issue, 0)!;
    const conventions = round0.argv[round0.argv.indexOf("--read") + 1]!;
    expect(round0.argv).toEqual([
      "--message-file",
      round0.env.ESCALATION_TASK_FILE,
      "--read",
      conventions,
      "--yes-always",
      "--no-auto-commits",
      "--no-gitignore",
      "--no-check-update",
      "--no-show-model-warnings",
      "--no-pretty",
      "--no-stream",
      "--no-analytics",
    ]);
    // The conventions the app wrote, outside the checkout, tell aider where to write its question.
    expect(Object.keys(round0.files)).toEqual([conventions]);
    expect(round0.files[conventions]).toContain("create the file `.escalation/ask.json`");
    expect(basename(dirname(conventions))).toMatch(/^escalation-recipe-/);
    expect(conventions.startsWith(root)).toBe(false);
    expect(round0.task).toContain("Cache the lookups.");
    const expected = [
      ...LOCALE.filter((n) => process.env[n] !== undefined),
      ...PASSTHROUGH,
      ...CONTRACT,
      ...Object.keys(agentGitEnv("http://x", "t", { url: "http://y", credential: "c" })),
    ];
    expect(Object.keys(round0.env).sort()).toEqual([...new Set(expected)].sort());
    expect(round0.env).toMatchObject({
      ESCALATION_ASK_FILE: join(round0.cwd, ".escalation", "ask.json"),
      ESCALATION_BRANCH: branch,
      ESCALATION_ROUND: "0",
      ANTHROPIC_API_KEY: "sk-ant-test",
    });

    // The edit is on the branch; the ask file is in no commit and gone from the checkout.
    expect(await waitFor("round 0's work on the branch", () => sim.fileAt(repo, branch, "NOTES.md"), 30_000)).toBe("Asked which cache to use.\n");
    expect(existsSync(round0.env.ESCALATION_ASK_FILE!)).toBe(false);
    expect(execFileSync("git", ["log", "--all", "--format=%H", "--", ".escalation"], { cwd: round0.cwd, encoding: "utf8" })).toBe("");
    expect(await sim.fileAt(repo, branch, ".escalation/ask.json")).toBeUndefined();
    // aider's own files stay in the checkout, excluded there, and off the branch.
    expect(readFileSync(join(round0.cwd, ".git", "info", "exclude"), "utf8").split("\n")).toContain(".aider*");
    expect(existsSync(join(round0.cwd, ".aider.chat.history.md"))).toBe(true);
    expect(await sim.fileAt(repo, branch, ".aider.chat.history.md")).toBeUndefined();
    await waitFor("the awaiting-human label", () => sim.issue(repo, issue).labels.includes("awaiting-human"), 30_000);

    sim.comment(repo, issue, "maintainer", "SQLite");
    const round1 = await waitFor("round 1's record", () => recorded("aider", repo, issue, 1), 30_000);
    expect(round1.cwd).toBe(round0.cwd);
    expect(round1.task).toMatch(/Answer from human @maintainer .*choosing option "SQLite"/);
    expect(await waitFor("round 1's work on the branch", () => sim.fileAt(repo, branch, "DONE.md"), 30_000)).toBe("Finished in round 1.\n");
    expect(await sim.fileAt(repo, branch, ".aider.chat.history.md")).toBeUndefined();
    // Round 1 has ended once the awaiting label is off: no second ask, no warning.
    await waitFor("the awaiting-human label off", () => !sim.issue(repo, issue).labels.includes("awaiting-human"), 30_000);
    expect(asks()).toHaveLength(1);
    expect(sim.comments(repo, issue).filter((c) => c.body.includes("⚠️"))).toEqual([]);
  }, 90_000);

  it("aider: an invalid ask file is not posted; the status comment says what is wrong, and the round counts as one that did not ask", async () => {
    const { sim } = loop;
    const repo = "acme/aider-bad-ask";
    sim.addRepo(repo);
    sim.setFile(repo, ".github/escalation.yml", "agent_profile: aider\n");
    sim.setPermission(repo, "maintainer", "write");
    await sim.seedGit(repo, { "README.md": "# app\n" });
    const issue = sim.createIssue(repo, { title: "Add a cache [bad ask]", body: "Cache the lookups.", author: "maintainer" }).number;
    sim.comment(repo, issue, "maintainer", "/agent");
    const status = () => sim.comments(repo, issue).find((c) => c.user.login === sim.botLogin && c.body.startsWith("### 🤖 Escalation status"))?.body ?? "";
    const line = await waitFor(
      "the warning on the status comment",
      () =>
        status()
          .split("\n")
          .find((l) => l.includes("⚠️ the agent's ask file was not posted")),
      30_000,
    );
    expect(line).toContain("round 0: agent finished (exit 0");
    expect(line).toContain(
      "⚠️ the agent's ask file was not posted: questions: Too small: expected array to have >=1 items. It must be JSON with the ask_human tool's arguments (README, \"The agent contract\").",
    );
    // Like a round that did not ask: its branch is delivered as the pull request, and no question waits.
    expect(line).toMatch(/ · pull request #\d+ opened \(/);
    expect(sim.comments(repo, issue).filter((c) => parseAskComment(c.body) !== undefined)).toEqual([]);
    expect(sim.issue(repo, issue).labels).not.toContain("awaiting-human");
    expect(await sim.fileAt(repo, `escalation/issue-${issue}`, ".escalation/ask.json")).toBeUndefined();
  }, 60_000);
});
