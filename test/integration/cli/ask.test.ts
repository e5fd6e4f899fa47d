import { execFile, type ExecFileException } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { projectRoot } from "../../../src/config/projectRoot.js";
import type { Ask } from "../../../src/domain.js";
import { parseAskComment } from "../../../src/protocol/ask.js";
import { ensureBuilt } from "../../support/build.js";

const BIN = join(projectRoot, "bin", "escalate");

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Reply {
  status: number;
  json: unknown;
}

let server: Server;
let apiUrl: string;
let requests: Recorded[] = [];
let reply: Reply;
const COMMENT_URL = "https://github.com/octo/demo/issues/7#issuecomment-9001";
const CREATED: Reply = { status: 201, json: { id: 9001, html_url: COMMENT_URL } };

beforeAll(async () => {
  // bin/escalate imports dist/: (re)built from the current src when older than it.
  await ensureBuilt();
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

beforeEach(() => {
  requests = [];
  reply = CREATED;
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real bin/escalate with only the environment given (plus a PATH that finds node). */
function escalate(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const childEnv: Record<string, string> = { PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter) };
  const base: Record<string, string> = {
    GITHUB_TOKEN: "ghs_test_token_123",
    GITHUB_API_URL: apiUrl,
    GITHUB_REPOSITORY: "octo/demo",
    ESCALATION_ISSUE: "7",
    ESCALATION_ROUND: "3",
  };
  for (const [k, v] of Object.entries({ ...base, ...env })) if (v !== undefined) childEnv[k] = v;
  return new Promise((resolve) => {
    execFile(BIN, args, { env: childEnv, cwd: projectRoot, timeout: 20_000 }, (error: ExecFileException | null, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const posted = (): { body: string; ask: Ask } => {
  expect(requests).toHaveLength(1);
  const body = (JSON.parse(requests[0]!.body) as { body: string }).body;
  const ask = parseAskComment(body);
  expect(ask).toBeDefined();
  return { body, ask: ask! };
};

describe("escalate ask: posting", () => {
  it("posts the ask on the issue, prints the comment URL and exits 0", async () => {
    const run = await escalate(["ask", "--question", "Which database?", "--option", "Postgres", "--option", "SQLite", "--default", "2"]);
    expect(run).toMatchObject({ code: 0, stdout: `${COMMENT_URL}\n`, stderr: "" });
    expect(requests).toHaveLength(1);
    const req = requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/repos/octo/demo/issues/7/comments");
    expect(req.headers.authorization).toBe("token ghs_test_token_123");
    expect(req.headers["content-type"]).toMatch(/^application\/json/);
    const { ask, body } = posted();
    expect(ask).toMatchObject({
      v: 1,
      kind: "question",
      round: 3,
      questions: [{ text: "Which database?", options: ["Postgres", "SQLite"], default: "SQLite" }],
    });
    expect(ask.id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(ask.timeoutSeconds).toBeUndefined();
    expect(body).toContain("2. SQLite _(default)_");
  });

  it("turns ordered flags into several questions, each with its own options, default and timeout", async () => {
    const run = await escalate(
      [
        "ask",
        "--timeout",
        "1d",
        "--context",
        "Migrating the cache.",
        "--question",
        "Which database?",
        "--option",
        "Postgres",
        "--option",
        "SQLite",
        "--default",
        "sqlite",
        "--question",
        "Keep the old API?",
        "--option",
        "yes",
        "--option",
        "no",
        "--timeout",
        "30m",
        "--question",
        "Anything else?",
        "--default",
        "no",
        "--kind",
        "review",
        "--repo",
        "other-org/other.repo",
        "--issue",
        "12",
      ],
      { GITHUB_REPOSITORY: undefined, ESCALATION_ISSUE: undefined, ESCALATION_ROUND: undefined },
    );
    expect(run.code).toBe(0);
    expect(requests[0]!.url).toBe("/repos/other-org/other.repo/issues/12/comments");
    const { ask } = posted();
    expect(ask).toMatchObject({
      kind: "review",
      round: 0,
      timeoutSeconds: 86400,
      context: "Migrating the cache.",
      questions: [
        { text: "Which database?", options: ["Postgres", "SQLite"], default: "SQLite" },
        { text: "Keep the old API?", options: ["yes", "no"], timeoutSeconds: 1800 },
        { text: "Anything else?", options: [], default: "no" },
      ],
    });
    expect(ask.questions[0]!.timeoutSeconds).toBeUndefined();
    expect(ask.questions[1]!.default).toBeUndefined();
  });

  it("accepts --flag=value and a base URL with a trailing slash", async () => {
    const run = await escalate(["ask", "--question=Free text?", "--timeout=90m"], { GITHUB_API_URL: `${apiUrl}/` });
    expect(run.code).toBe(0);
    expect(requests[0]!.url).toBe("/repos/octo/demo/issues/7/comments");
    expect(posted().ask.questions).toEqual([{ text: "Free text?", options: [], timeoutSeconds: 5400 }]);
  });

  it("a question's --timeout after it belongs to the question, not the ask", async () => {
    expect((await escalate(["ask", "--question", "Q?", "--timeout", "2h"])).code).toBe(0);
    const { ask } = posted();
    expect(ask.timeoutSeconds).toBeUndefined();
    expect(ask.questions[0]!.timeoutSeconds).toBe(7200);
  });
});

describe("escalate ask: --dry-run", () => {
  it("--kind approval --approvers 2 posts an approval ask with the count in its marker", async () => {
    const run = await escalate(["ask", "--kind", "approval", "--approvers", "2", "--question", "Deploy v2 to production?", "--timeout", "1d"]);
    expect(run).toMatchObject({ code: 0, stdout: `${COMMENT_URL}\n` });
    const { ask, body } = posted();
    expect(ask).toMatchObject({ kind: "approval", approvers: 2, questions: [{ text: "Deploy v2 to production?", options: [] }] });
    expect(body).toContain("### 🔐 The agent asks for approval");
    expect(body).toContain("Needs **2 approvals** from people who may answer here");
  });

  it("prints the comment and posts nothing, even without a token", async () => {
    const run = await escalate(["ask", "--question", "Which database?", "--option", "Postgres", "--option", "SQLite", "--dry-run"], {
      GITHUB_TOKEN: undefined,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(requests).toEqual([]);
    expect(run.stdout).toContain("**Which database?**");
    const ask = parseAskComment(run.stdout);
    expect(ask?.questions).toEqual([{ text: "Which database?", options: ["Postgres", "SQLite"] }]);
    expect(ask?.round).toBe(3);
  });
});

// Concurrent: each case is a separate process and none of them posts anything.
describe.concurrent("escalate ask: bad usage exits 2 and names the flag", () => {
  it.for<[string, string[], Record<string, string | undefined>, RegExp]>([
    ["no --question", ["ask", "--context", "no questions here"], {}, /At least one --question is required/],
    ["--option before --question", ["ask", "--option", "A", "--question", "Q?"], {}, /--option must follow the --question/],
    ["--default before --question", ["ask", "--default", "A", "--question", "Q?"], {}, /--default must follow the --question/],
    ["a bad --timeout", ["ask", "--question", "Q?", "--timeout", "soon"], {}, /--timeout must be a positive duration .*"soon"/],
    ["a bad ask-level --timeout", ["ask", "--timeout", "0", "--question", "Q?"], {}, /--timeout must be a positive duration/],
    ["an unknown flag", ["ask", "--question", "Q?", "--colour", "red"], {}, /Unknown option '--colour'/],
    ["a positional argument", ["ask", "--question", "Q?", "stray"], {}, /stray/],
    ["--question without a value", ["ask", "--question"], {}, /--question/],
    ["duplicate options", ["ask", "--question", "Q?", "--option", "A", "--option", "a"], {}, /questions\.0\.options: option labels must differ/],
    ["a bad --repo", ["ask", "--question", "Q?", "--repo", "no-slash"], {}, /--repo must be OWNER\/REPO \(got "no-slash"\)/],
    ["a bad --issue", ["ask", "--question", "Q?", "--issue", "0"], {}, /--issue must be an issue number \(got "0"\)/],
    ["--approvers zero", ["ask", "--kind", "approval", "--question", "Deploy?", "--approvers", "0"], {}, /--approvers must be at least 1 \(got 0\)/],
    [
      "--approvers not a number",
      ["ask", "--kind", "approval", "--question", "Deploy?", "--approvers", "two"],
      {},
      /--approvers must be a positive integer \(got "two"\)/,
    ],
    ["--approvers too many", ["ask", "--kind", "approval", "--question", "Deploy?", "--approvers", "21"], {}, /--approvers must be at most 20 \(got 21\)/],
    [
      "--approvers without --kind approval",
      ["ask", "--question", "Deploy?", "--approvers", "2"],
      {},
      /--approvers needs --kind approval \(got --kind question\)/,
    ],
    [
      "--option with --kind approval",
      ["ask", "--kind", "approval", "--question", "Deploy?", "--option", "yes"],
      {},
      /--option is not allowed with --kind approval/,
    ],
    [
      "--default with --kind approval",
      ["ask", "--kind", "approval", "--question", "Deploy?", "--default", "yes"],
      {},
      /--default is not allowed with --kind approval/,
    ],
    [
      "two questions with --kind approval",
      ["ask", "--kind", "approval", "--question", "A?", "--question", "B?"],
      {},
      /--kind approval takes exactly one --question/,
    ],
    ["no command", [], {}, /No command given/],
    ["an unknown command", ["tell", "--question", "Q?"], {}, /Unknown command "tell"/],
  ])("%s", async ([, args, env, message], { expect }) => {
    const run = await escalate(args, env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^escalate: /);
    expect(run.stderr).toMatch(message);
    // A bad flag of ask gets ask's help; no command or an unknown one, the overview.
    expect(run.stderr).toContain(args[0] === "ask" ? "Usage: escalate ask --question TEXT [flags]" : "Usage: escalate <command> [flags]");
    expect(requests).toEqual([]);
  });

  it.for<[string, Record<string, string | undefined>, string]>([
    [
      "no repository at all",
      { GITHUB_REPOSITORY: undefined },
      "GITHUB_REPOSITORY is not set: the app sets it for the agents it spawns; to ask by hand, set it (or pass --repo and --issue).",
    ],
    [
      "a bad GITHUB_REPOSITORY",
      { GITHUB_REPOSITORY: "no-slash" },
      'GITHUB_REPOSITORY must be OWNER/REPO (got "no-slash"): the app sets it for the agents it spawns; to ask by hand, set it (or pass --repo and --issue).',
    ],
    ["no token", { GITHUB_TOKEN: undefined }, "GITHUB_TOKEN is not set: the app sets it for the agents it spawns; to ask by hand, set it."],
    ["a bad ESCALATION_ROUND", { ESCALATION_ROUND: "two" }, "Invalid environment: ESCALATION_ROUND: must be a round number (0, 1, 2, …)"],
  ])("%s is one line naming the variable, exit 2, without the usage", async ([, env, message], { expect }) => {
    const run = await escalate(["ask", "--question", "Q?"], env);
    expect(run).toEqual({ code: 2, stdout: "", stderr: `escalate: ${message}\n` });
    expect(requests).toEqual([]);
  });

  it("--repo and --issue stand in for their variables", async ({ expect }) => {
    const run = await escalate(["ask", "--question", "Q?", "--dry-run", "--repo", "octo/demo", "--issue", "7"], {
      GITHUB_REPOSITORY: undefined,
      ESCALATION_ISSUE: undefined,
      GITHUB_TOKEN: undefined,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Q?");
  });

  /** 20 questions of 900 characters: each valid, together too large for the hidden marker. */
  const tooLarge = () => Array.from({ length: 20 }, (_, i) => ["--question", `${i + 1}: ${"why ".repeat(225)}`]).flat();

  it("an ask too large for the marker is refused before anything is posted", async ({ expect }) => {
    const run = await escalate(["ask", ...tooLarge()]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/ask marker would be \d+ characters; keep it under 16384/);
    expect(requests).toEqual([]);
  });

  it("an ask too large for the marker is bad usage (exit 2)", async ({ expect }) => {
    const run = await escalate(["ask", ...tooLarge()]);
    expect(run.code).toBe(2);
  });

  it("help prints the usage and exits 0", async ({ expect }) => {
    const run = await escalate(["help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: escalate <command> [flags]");
    expect(run.stdout).toContain("--question TEXT");
  });
});

describe("escalate ask: GitHub refusing", () => {
  it("exits 1 on a 403 and prints GitHub's message, without the usage text", async () => {
    reply = { status: 403, json: { message: "Resource not accessible by integration", documentation_url: "https://docs.github.com/rest" } };
    const run = await escalate(["ask", "--question", "Q?"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("escalate: GitHub refused the comment on octo/demo#7 (HTTP 403): Resource not accessible by integration");
    expect(run.stderr).not.toContain("Usage:");
    expect(run.stderr).not.toContain("ghs_test_token_123");
    expect(requests).toHaveLength(1);
  });

  it("exits 1 on a 404 for an unknown issue", async () => {
    reply = { status: 404, json: { message: "Not Found" } };
    const run = await escalate(["ask", "--question", "Q?", "--issue", "999"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("(HTTP 404): Not Found");
  });

  /** An API URL on which nothing listens. */
  async function deadApiUrl(): Promise<string> {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    return `http://127.0.0.1:${port}`;
  }

  it("exits 1 when GitHub cannot be reached, saying why", async () => {
    const run = await escalate(["ask", "--question", "Q?"], { GITHUB_API_URL: await deadApiUrl() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^escalate: GitHub could not be reached to post the comment on octo\/demo#7\b/);
    expect(run.stderr).toContain("ECONNREFUSED");
    expect(run.stderr).not.toContain("Usage:");
  });

  it("does not invent an HTTP status when GitHub never answered", async () => {
    const run = await escalate(["ask", "--question", "Q?"], { GITHUB_API_URL: await deadApiUrl() });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain("HTTP 500");
  });
});
