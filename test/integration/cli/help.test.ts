import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, it } from "vitest";
import { COMMANDS } from "../../../src/cli/usage.js";
import { ensureBuilt } from "../../support/build.js";
import { runEscalate } from "../../support/escalateBin.js";

beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

// Concurrent: each case is a separate process.
describe.concurrent("escalate COMMAND --help", () => {
  it.for(
    COMMANDS.flatMap((command) => [
      [command, "--help"],
      [command, "-h"],
    ]),
  )("%s %s prints that command's help and exits 0", async ([command, flag], { expect }) => {
    // A flag that would otherwise be refused comes first: --help wins wherever it stands.
    const args = command === "mcp" ? [command, flag!] : [command!, "--json", flag!];
    const run = await runEscalate(args);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(new RegExp(`^Usage: escalate ${command}\\b`));
    expect(run.stdout).toContain("-h, --help");
    expect(run.stdout).toContain("Exit codes:");
    expect(run.stdout).not.toContain("Commands:");
  });

  it("ask's help lists its flags and status's its own", async ({ expect }) => {
    const ask = await runEscalate(["ask", "--help"]);
    expect(ask.stdout).toContain("--question TEXT");
    expect(ask.stdout).not.toContain("--by answerer");
    const status = await runEscalate(["status", "--help"]);
    expect(status.stdout).toContain("--by answerer");
    expect(status.stdout).not.toContain("--question TEXT");
  });

  it.for([["--help"], ["-h"], ["help"]])("escalate %s prints the overview of every command and exits 0", async ([flag], { expect }) => {
    const run = await runEscalate([flag!]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^Usage: escalate <command> \[flags\]/);
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
  });

  it("escalate help answer prints answer's help", async ({ expect }) => {
    const run = await runEscalate(["help", "answer"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: escalate answer GATE/);
  });

  it("a bad flag is refused with that command's help, exit 2", async ({ expect }) => {
    const run = await runEscalate(["status", "--colour"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^escalate: Unknown option '--colour'/);
    expect(run.stderr).toContain("Usage: escalate status [flags]");
    expect(run.stderr).not.toContain("Commands:");
  });
});

/** stderr as lines, without the final newline. */
const lines = (text: string) => text.replace(/\n$/, "").split("\n");

describe.concurrent("an environment error is one line saying what to set, exit 2", () => {
  it("ask in an empty environment names the three variables the app sets for agents", async ({ expect }) => {
    const run = await runEscalate(["ask", "--question", "Which database?"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(lines(run.stderr)).toEqual([
      "escalate: GITHUB_TOKEN is not set, GITHUB_REPOSITORY is not set, ESCALATION_ISSUE is not set: the app sets these for the agents it spawns; to ask by hand, set them (or pass --repo and --issue).",
    ]);
  });

  it("ask with a malformed ESCALATION_ROUND names it", async ({ expect }) => {
    const run = await runEscalate(["ask", "--question", "Q?"], {
      GITHUB_TOKEN: "t",
      GITHUB_REPOSITORY: "octo/demo",
      ESCALATION_ISSUE: "7",
      ESCALATION_ROUND: "two",
    });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(/^escalate: Invalid environment: ESCALATION_ROUND: /);
  });

  it("ask with a malformed ESCALATION_ROUND and no ESCALATION_ISSUE names both, in one line", async ({ expect }) => {
    const run = await runEscalate(["ask", "--question", "Q?"], { GITHUB_TOKEN: "t", GITHUB_REPOSITORY: "octo/demo", ESCALATION_ROUND: "two" });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(run.stderr).toMatch(/^escalate: Invalid environment: ESCALATION_ROUND: .*; ESCALATION_ISSUE is not set: /);
  });

  it("status with neither REDIS_URL nor a redis.url in DATA_DIR names both", async ({ expect }) => {
    const dataDir = mkdtempSync(join(tmpdir(), "esc-nodata-"));
    const run = await runEscalate(["status"], { DATA_DIR: dataDir });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `escalate: REDIS_URL is not set and there is no ${join(dataDir, "redis.url")}: set REDIS_URL to the app's Redis, or DATA_DIR to the data directory of the running app (its private Redis writes redis.url there).`,
    ]);
  });

  it("answer without GITHUB_TOKEN says whose token to use", async ({ expect }) => {
    const run = await runEscalate(["answer", "1234", "--choice", "1"]);
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      "escalate: GITHUB_TOKEN is not set: use your own token (a user with write access to the repository), so the answer is yours.",
    ]);
  });
});
