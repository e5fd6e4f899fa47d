import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { answerCommand } from "../../../src/cli/commands/answer.js";
import { EnvironmentError, UsageError } from "../../../src/cli/usage.js";
import { EscalationError, GitHubError } from "../../../src/errors.js";
import { openStores, type Stores } from "../../../src/store/stores.js";
import { gateFixture, newGate } from "../../support/gates.js";
import { RecordingApi } from "../../support/recordingApi.js";

let redis: Redis;
let prefix: string;
let store: Stores;
const api = new RecordingApi();

const SINGLE = gateFixture({ id: "201", repo: "acme/widgets", issue: 12 });
const SEVERAL = gateFixture({
  id: "202",
  repo: "acme/widgets",
  issue: 13,
  ask: {
    questions: [
      { text: "Which database?", options: ["Postgres", "SQLite"], default: "Postgres" },
      { text: "Keep the old API?", options: ["yes", "no"], default: "yes" },
    ],
  },
});
const CLOSED = gateFixture({ id: "203", repo: "acme/widgets", issue: 14 });

beforeAll(async () => {
  await api.start();
  redis = new Redis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
  prefix = `an-${randomUUID().slice(0, 8)}`;
  store = openStores(redis, prefix);
  for (const gate of [SINGLE, SEVERAL, CLOSED]) {
    await store.issues.upsertIssue({ repo: gate.repo, issue: gate.issue, installationId: 1, title: "t", body: "", url: "", assignees: [] });
    await store.gates.openGate(newGate(gate));
  }
  expect(await store.gates.cancelGate(CLOSED, "the issue was closed")).toBe(true);
});
afterAll(async () => {
  await api.stop();
  await redis?.quit();
});
beforeEach(() => {
  api.requests = [];
  api.reply = { status: 201, json: { id: 9001, html_url: "https://github.com/acme/widgets/issues/12#issuecomment-9001" } };
});

const env = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  REDIS_URL: inject("redisUrl"),
  REDIS_PREFIX: prefix,
  GITHUB_TOKEN: "ghp_operator_token",
  GITHUB_API_URL: api.url,
  ...over,
});
async function answer(argv: string[], e = env()): Promise<string[]> {
  const out: string[] = [];
  await answerCommand(argv, e, (line) => out.push(line));
  return out;
}

describe("escalate answer: posts the answer on the gate's issue with the operator's token", () => {
  it('--choice 2 posts "2" on the issue and prints the comment URL', async () => {
    expect(await answer(["201", "--choice", "2"])).toEqual(["https://github.com/acme/widgets/issues/12#issuecomment-9001"]);
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({ method: "POST", url: "/repos/acme/widgets/issues/12/comments" });
    expect(api.requests[0]!.headers.authorization).toBe("token ghp_operator_token");
    expect(api.bodies()).toEqual(["2"]);
  });

  it.each<[string, string[], string]>([
    ["--text", ["201", "--text", "SQLite, keep it embedded"], "SQLite, keep it embedded"],
    ["--defaults", ["202", "--defaults"], "/defaults"],
    ["--raw", ["202", "--raw", '{"2":"no","1":"SQLite"}'], "1. SQLite\n2. no"],
    ["--raw=JSON on one question", ["201", '--raw={"1":"Postgres"}'], "Postgres"],
  ])("%s posts the comment a human would write", async (_name, argv, body) => {
    await answer(argv);
    expect(api.bodies()).toEqual([body]);
    expect(api.requests[0]!.url).toBe(argv[0] === "201" ? "/repos/acme/widgets/issues/12/comments" : "/repos/acme/widgets/issues/13/comments");
  });
});

describe("escalate answer: refusals", () => {
  it.each<[string, string[], NodeJS.ProcessEnv, RegExp]>([
    ["no gate id", ["--choice", "1"], {}, /answer needs the gate id/],
    ["two gate ids", ["201", "202", "--choice", "1"], {}, /answer takes one gate id/],
    ["no answer flag", ["201"], {}, /Give exactly one of --choice N, --text TEXT, --defaults or --raw JSON\.$/],
    ["two answer flags", ["201", "--choice", "1", "--defaults"], {}, /\(got --choice, --defaults\)/],
    ["a bad --choice", ["201", "--choice", "two"], {}, /--choice must be an option number \(got "two"\)/],
    ["--choice out of range", ["201", "--choice", "3"], {}, /the question has 2 options/],
    ["bad --raw JSON", ["202", "--raw", "{1:"], {}, /--raw must be a JSON object/],
    ["--raw not an object", ["202", "--raw", '["a"]'], {}, /--raw must be a JSON object/],
    ["--raw with a bad key", ["202", "--raw", '{"first":"a"}'], {}, /key "first" must be a question number/],
    ["--raw with an empty answer", ["202", "--raw", '{"1":" "}'], {}, /the answer to question 1 must be a non-empty string/],
    ["an unknown flag", ["201", "--choose", "1"], {}, /Unknown option '--choose'/],
  ])("%s is a usage error and posts nothing", async (_name, argv, over, message) => {
    const error = await answer(argv, env(over)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect(api.requests).toEqual([]);
  });

  it.each<[string, NodeJS.ProcessEnv, RegExp, string[]]>([
    ["no GITHUB_TOKEN", { GITHUB_TOKEN: undefined }, /GITHUB_TOKEN is not set: use your own token/, ["GITHUB_TOKEN"]],
    [
      "no REDIS_URL and no redis.url in DATA_DIR",
      { REDIS_URL: undefined, DATA_DIR: mkdtempSync(join(tmpdir(), "esc-answer-nodata-")) },
      /REDIS_URL is not set and there is no .*redis\.url/,
      ["REDIS_URL", "DATA_DIR"],
    ],
  ])("%s is an environment error naming the variable, and posts nothing", async (_name, over, message, variables) => {
    const error = await answer(["201", "--choice", "1"], env(over)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toMatch(message);
    expect((error as EnvironmentError).variables).toEqual(variables);
    expect(api.requests).toEqual([]);
  });

  it("an unknown gate fails (exit 1) and names the prefix", async () => {
    const error = (await answer(["999", "--choice", "1"]).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(EscalationError);
    expect(error).not.toBeInstanceOf(UsageError);
    expect(error.message).toBe(`No gate "999" in Redis (prefix "${prefix}"); \`escalate status\` lists the open ones.`);
    expect(api.requests).toEqual([]);
  });

  it("a gate no longer open fails and posts nothing", async () => {
    const error = (await answer(["203", "--choice", "1"]).catch((e: unknown) => e)) as Error;
    expect(error).not.toBeInstanceOf(UsageError);
    expect(error.message).toBe("Gate 203 on acme/widgets#14 is cancelled; there is nothing to answer.");
    expect(api.requests).toEqual([]);
  });

  it("GitHub refusing the comment is a GitHubError with GitHub's message", async () => {
    api.reply = { status: 403, json: { message: "Must have admin rights to Repository." } };
    const error = (await answer(["201", "--choice", "1"]).catch((e: unknown) => e)) as GitHubError;
    expect(error).toBeInstanceOf(GitHubError);
    expect(error.status).toBe(403);
    expect(error.message).toBe("GitHub refused the comment on acme/widgets#12 (HTTP 403): Must have admin rights to Repository.");
  });
});
