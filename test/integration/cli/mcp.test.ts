import { delimiter, dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { askCommand } from "../../../src/cli/commands/ask.js";
import { projectRoot } from "../../../src/config/projectRoot.js";
import { parseAskComment, renderAskComment } from "../../../src/protocol/ask.js";
import { ensureBuilt } from "../../support/build.js";
import { RecordingApi } from "../../support/recordingApi.js";

const BIN = join(projectRoot, "bin", "escalate");
const api = new RecordingApi();
const COMMENT_URL = "https://github.com/octo/demo/issues/7#issuecomment-9001";
let client: Client;
let stderr = "";

const agentEnv = () => ({
  PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter),
  GITHUB_TOKEN: "ghs_agent_token",
  GITHUB_API_URL: api.url,
  GITHUB_REPOSITORY: "octo/demo",
  ESCALATION_ISSUE: "7",
  ESCALATION_ROUND: "2",
});

beforeAll(async () => {
  await ensureBuilt();
  await api.start();
  const transport = new StdioClientTransport({ command: BIN, args: ["mcp"], env: agentEnv(), cwd: projectRoot, stderr: "pipe" });
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  client = new Client({ name: "escalation-test", version: "1.0.0" });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await api.stop();
});

beforeEach(() => {
  api.requests = [];
  api.reply = { status: 201, json: { id: 9001, html_url: COMMENT_URL } };
});

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n");
/** The comment re-rendered with a fixed ask id (each ask gets a random one), after checking it is the canonical rendering. */
function withoutId(body: string): string {
  const ask = parseAskComment(body)!;
  expect(renderAskComment(ask)).toBe(body);
  return renderAskComment({ ...ask, id: "fixed-ask-id" });
}

describe("escalate mcp", () => {
  it("offers one tool, ask_human, with questions, options, default, timeout and context", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["ask_human"]);
    const schema = tools[0]!.inputSchema as { properties: Record<string, { items?: { properties: Record<string, unknown> } }>; required?: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(["approvers", "context", "kind", "paths", "questions", "timeout"]);
    expect(schema.required).toEqual(["questions"]);
    expect(Object.keys(schema.properties.questions!.items!.properties).sort()).toEqual(["default", "options", "text", "timeout"]);
    expect(tools[0]!.description).toMatch(/finish .* and exit/);
  });

  it("ask_human posts the same comment as `escalate ask` and tells the agent to finish and exit", async () => {
    const result = await client.callTool({
      name: "ask_human",
      arguments: {
        context: "Migrating the cache.",
        timeout: "1d",
        paths: ["src/cache/", "src/db.ts"],
        questions: [
          { text: "Which database?", options: ["Postgres", "SQLite"], default: "2" },
          { text: "Keep the old API?", options: ["yes", "no"], timeout: 1800 },
        ],
      },
    });
    expect(result.isError).toBeFalsy();
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({ method: "POST", url: "/repos/octo/demo/issues/7/comments" });
    expect(api.requests[0]!.headers.authorization).toBe("token ghs_agent_token");
    const [body] = api.bodies();
    expect(parseAskComment(body!)).toMatchObject({
      round: 2,
      kind: "question",
      timeoutSeconds: 86400,
      context: "Migrating the cache.",
      paths: ["src/cache/", "src/db.ts"],
      questions: [
        { text: "Which database?", options: ["Postgres", "SQLite"], default: "SQLite" },
        { text: "Keep the old API?", options: ["yes", "no"], timeoutSeconds: 1800 },
      ],
    });
    // The CLI, given the same ask as flags, renders the very same comment.
    const cli = await askCommand(
      [
        "--timeout",
        "1d",
        "--context",
        "Migrating the cache.",
        "--path",
        "src/cache/",
        "--path",
        "src/db.ts",
        "--question",
        "Which database?",
        "--option",
        "Postgres",
        "--option",
        "SQLite",
        "--default",
        "2",
        "--question",
        "Keep the old API?",
        "--option",
        "yes",
        "--option",
        "no",
        "--timeout",
        "30m",
        "--dry-run",
      ],
      { ...agentEnv() },
      () => undefined,
    );
    expect(withoutId(body!)).toBe(withoutId(cli.body));

    const text = textOf(result);
    expect(text).toContain(`Your 2 questions are posted on octo/demo#7: ${COMMENT_URL}`);
    expect(text).toMatch(/Do not wait for the answer .* finish now/);
    expect(text).toMatch(/exit/);
  });

  it("ask_human asks for an approval like `escalate ask --kind approval --approvers 2`, and refuses options on it", async () => {
    const result = await client.callTool({ name: "ask_human", arguments: { kind: "approval", approvers: 2, questions: [{ text: "Deploy v2?" }] } });
    expect(result.isError).toBeFalsy();
    const [body] = api.bodies();
    expect(parseAskComment(body!)).toMatchObject({ kind: "approval", approvers: 2, questions: [{ text: "Deploy v2?", options: [] }] });
    const cli = await askCommand(["--kind", "approval", "--approvers", "2", "--question", "Deploy v2?", "--dry-run"], { ...agentEnv() }, () => undefined);
    expect(withoutId(body!)).toBe(withoutId(cli.body));

    const withOptions = await client.callTool({ name: "ask_human", arguments: { kind: "approval", questions: [{ text: "Deploy?", options: ["yes", "no"] }] } });
    expect(withOptions.isError).toBe(true);
    expect(textOf(withOptions)).toMatch(/an approval has no options; people reply approve or deny\. Fix the arguments/);
    const stray = await client.callTool({ name: "ask_human", arguments: { approvers: 2, questions: [{ text: "Deploy?" }] } });
    expect(textOf(stray)).toMatch(/approvers: only an ask of kind "approval" has approvers/);
    expect(api.requests).toHaveLength(1);
  });

  it("a GitHub refusal is a tool error saying the question was not posted", async () => {
    api.reply = { status: 403, json: { message: "Resource not accessible by integration" } };
    const result = await client.callTool({ name: "ask_human", arguments: { questions: [{ text: "Q?" }] } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "Could not ask: GitHub refused the comment on octo/demo#7 (HTTP 403): Resource not accessible by integration The question was NOT posted.",
    );
  });

  it("bad arguments are a tool error the agent can fix, and post nothing", async () => {
    const badTimeout = await client.callTool({ name: "ask_human", arguments: { questions: [{ text: "Q?", timeout: "soon" }] } });
    expect(badTimeout.isError).toBe(true);
    expect(textOf(badTimeout)).toMatch(/questions\[0\]\.timeout must be a positive duration .*Fix the arguments and call ask_human again\./);
    const duplicate = await client.callTool({ name: "ask_human", arguments: { questions: [{ text: "Q?", options: ["A", "a"] }] } });
    expect(duplicate.isError).toBe(true);
    expect(textOf(duplicate)).toMatch(/option labels must differ/);
    const noQuestions = await client.callTool({ name: "ask_human", arguments: { questions: [] } });
    expect(noQuestions.isError).toBe(true);
    expect(api.requests).toEqual([]);
    expect(stderr).toBe("");
  });
});

/** An `escalate mcp` started as an MCP client that passes servers no environment of the agent's would start it. */
async function serverWith(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({ command: BIN, args: ["mcp"], env: { PATH: agentEnv().PATH, ...env }, cwd: projectRoot, stderr: "pipe" });
  const bare = new Client({ name: "escalation-test-bare", version: "1.0.0" });
  await bare.connect(transport);
  return bare;
}

describe("escalate mcp started without the agent's environment", () => {
  it("ask_human says what the client must pass, that the model cannot fix it, and to stop rather than retry", async () => {
    const bare = await serverWith({});
    try {
      const result = await bare.callTool({ name: "ask_human", arguments: { questions: [{ text: "Which database?", options: ["Postgres", "SQLite"] }] } });
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toMatch(
        /^The question was NOT posted: the escalation MCP server was started without a usable GITHUB_TOKEN, GITHUB_REPOSITORY, ESCALATION_ISSUE in its environment\./,
      );
      expect(text).toContain("a configuration problem of the MCP client");
      expect(text).toContain("You cannot fix it, and calling ask_human again will fail the same way.");
      expect(text).toMatch(
        /Stop, and report to the user .* must pass GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY, ESCALATION_ISSUE, ESCALATION_ROUND, ESCALATION_CHANNEL_URL, ESCALATION_CHANNEL_TOKEN in the server's env/,
      );
      // Nothing that invites a retry, nor a flag the tool does not have.
      expect(text).not.toMatch(/--repo|--issue|Fix the arguments/);

      // Even arguments that are wrong get the same answer: fixing them would not help.
      const badArgs = await bare.callTool({ name: "ask_human", arguments: { questions: [{ text: "Q?", timeout: "soon" }] } });
      expect(badArgs.isError).toBe(true);
      expect(textOf(badArgs)).toBe(text);
    } finally {
      await bare.close();
    }
    expect(api.requests).toEqual([]);
  });

  it("names only what is missing or malformed when the client passed part of it", async () => {
    const given = { GITHUB_TOKEN: "ghs_agent_token", GITHUB_API_URL: api.url, GITHUB_REPOSITORY: "octo/demo" };
    for (const [env, named] of [
      [{ ...given, ESCALATION_ROUND: "two", ESCALATION_ISSUE: "7" }, "ESCALATION_ROUND"],
      [given, "ESCALATION_ISSUE"],
      [{ ...given, ESCALATION_ROUND: "two" }, "ESCALATION_ROUND, ESCALATION_ISSUE"],
    ] as const) {
      const partial = await serverWith(env);
      try {
        const result = await partial.callTool({ name: "ask_human", arguments: { questions: [{ text: "Q?" }] } });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(
          new RegExp(`^The question was NOT posted: the escalation MCP server was started without a usable ${named} in its environment\\.`),
        );
      } finally {
        await partial.close();
      }
    }
    expect(api.requests).toEqual([]);
  });
});
