import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renderAgentComment } from "../../../src/protocol/agentComment.js";
import { ensureBuilt } from "../../support/build.js";
import { runEscalate, type EscalateRun } from "../../support/escalateBin.js";

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Reply {
  status: number;
  /** JSON, or a string sent as text/plain (a proxy's or server's own page). */
  json: unknown;
  headers?: Record<string, string>;
}

/**
 * One loopback stand-in for both the app's round channel (`POST /comment`) and GitHub's REST API
 * (`POST /repos/…/comments`): a test that expects the channel sees it if GitHub was dialled too.
 */
let server: Server;
let baseUrl: string;
/** Every request the stand-in got, never cleared: concurrent cases read their own by their token. */
const log: Recorded[] = [];
/** Where this test's requests start in the log (sequential tests). */
let mark = 0;
const requests = (): Recorded[] => log.slice(mark);
/** The requests that carry `tag` in their token or path, whichever case's test is running (concurrent tests). */
const sentWith = (tag: string): Recorded[] => log.filter((r) => r.url.includes(tag) || (r.headers.authorization ?? "").includes(tag));
let tags = 0;
/** A tag no other case's contains. */
const newTag = (): string => `-t${++tags}-`;
/** Replies for the next requests, in order; once spent, the default reply of the path. */
let replies: Reply[] = [];
let dir: string;

const CHANNEL_COMMENT_URL = "https://github.com/octo/demo/issues/7#issuecomment-4242";
const GITHUB_COMMENT_URL = "https://github.com/octo/demo/issues/7#issuecomment-9001";
const CHANNEL_CREATED: Reply = { status: 201, json: { url: CHANNEL_COMMENT_URL } };
const GITHUB_CREATED: Reply = { status: 201, json: { id: 9001, html_url: GITHUB_COMMENT_URL } };
const COMMENT_USAGE = "Usage: escalate comment (--body TEXT | --body-file FILE)";

beforeAll(async () => {
  // bin/escalate imports dist/: (re)built from the current src when older than it.
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "escalate-comment-"));
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      log.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const reply = replies.shift() ?? (req.url === "/comment" ? CHANNEL_CREATED : GITHUB_CREATED);
      const text = typeof reply.json === "string";
      res.writeHead(reply.status, { "content-type": text ? "text/plain; charset=utf-8" : "application/json; charset=utf-8", ...reply.headers });
      res.end(text ? (reply.json as string) : JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  mark = log.length;
  replies = [];
});

/**
 * The environment of a round's agent: the round channel set, and a read-only GITHUB_TOKEN it must
 * not use. `tag`, in both tokens and GitHub's path, tells a concurrent case's requests apart.
 */
const roundEnv = (tag = ""): Record<string, string> => ({
  ESCALATION_CHANNEL_URL: baseUrl,
  ESCALATION_CHANNEL_TOKEN: `secret${tag}`,
  GITHUB_TOKEN: `ghs_read_only_token${tag}`,
  // Where a wrong fallback to GitHub would land: on the same stand-in, so it would be seen.
  GITHUB_API_URL: tag ? `${baseUrl}/${tag}` : baseUrl,
  GITHUB_REPOSITORY: "octo/demo",
  ESCALATION_ISSUE: "7",
  ESCALATION_ROUND: "2",
});

/** The environment of a person commenting by hand: no round channel, their own GITHUB_TOKEN. */
const byHandEnv = (): Record<string, string> => ({
  GITHUB_TOKEN: "ghp_by_hand_token_123",
  GITHUB_API_URL: baseUrl,
  GITHUB_REPOSITORY: "octo/demo",
  ESCALATION_ISSUE: "7",
  ESCALATION_ROUND: "2",
});

/** Runs the real bin/escalate with only `env` (undefined drops a variable); `input` is its standard input. */
function escalate(args: string[], env: Record<string, string | undefined>, input = ""): Promise<EscalateRun> {
  const defined = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return runEscalate(args, defined, { input });
}

/** The one request the stand-in got, checked to be the round channel's comment request. */
function channelRequest(): Recorded {
  expect(requests().map((r) => `${r.method} ${r.url}`)).toEqual(["POST /comment"]);
  const req = requests()[0]!;
  expect(req.headers.authorization).toBe("Bearer secret");
  expect(req.headers["content-type"]).toMatch(/^application\/json/);
  return req;
}

describe("escalate comment: through the round channel", () => {
  it("posts { body } with the channel's bearer token, prints the URL the app answers and exits 0", async () => {
    const run = await escalate(["comment", "--body", "Done; see DONE.md."], roundEnv());
    expect(run).toEqual({ code: 0, stdout: `${CHANNEL_COMMENT_URL}\n`, stderr: "" });
    const req = channelRequest();
    // Exactly the agent's text: the app, not the CLI, renders it as the agent's words.
    expect(req.body).toBe('{"body":"Done; see DONE.md."}');
    expect(req.headers.authorization).not.toContain("ghs_read_only_token");
  });

  it("needs no GITHUB_TOKEN, and accepts --body=TEXT and a channel URL with a trailing slash", async () => {
    const run = await escalate(["comment", "--body=Halfway there."], { ...roundEnv(), GITHUB_TOKEN: undefined, ESCALATION_CHANNEL_URL: `${baseUrl}/` });
    expect(run).toEqual({ code: 0, stdout: `${CHANNEL_COMMENT_URL}\n`, stderr: "" });
    expect(JSON.parse(channelRequest().body)).toEqual({ body: "Halfway there." });
  });

  it("--body-file - reads the text from standard input, as it is", async () => {
    const text = "## Progress\n\n- step 1 ✓\n- step 2: `npm test` <!-- not a marker -->\n";
    const run = await escalate(["comment", "--body-file", "-"], roundEnv(), text);
    expect(run).toEqual({ code: 0, stdout: `${CHANNEL_COMMENT_URL}\n`, stderr: "" });
    expect(JSON.parse(channelRequest().body)).toEqual({ body: text });
  });

  it("--body-file PATH reads the text from the file", async () => {
    const text = "Tests pass.\n\nSee `DONE.md` for what changed — and why.\n";
    const path = join(dir, "note.md");
    await writeFile(path, text, "utf8");
    const run = await escalate(["comment", "--body-file", path], roundEnv());
    expect(run).toEqual({ code: 0, stdout: `${CHANNEL_COMMENT_URL}\n`, stderr: "" });
    expect(JSON.parse(channelRequest().body)).toEqual({ body: text });
  });

  it("--repo and --issue naming the round's own issue (any case) are allowed", async () => {
    const run = await escalate(["comment", "--body", "Same issue.", "--repo", "Octo/Demo", "--issue", "7"], roundEnv());
    expect(run.code).toBe(0);
    expect(JSON.parse(channelRequest().body)).toEqual({ body: "Same issue." });
  });

  it("tries again after a 503 with Retry-After, and posts once", async () => {
    replies = [{ status: 503, json: { error: "deferred", message: "The app may not write on GitHub now." }, headers: { "retry-after": "1" } }];
    const run = await escalate(["comment", "--body", "Eventually."], roundEnv());
    expect(run).toEqual({ code: 0, stdout: `${CHANNEL_COMMENT_URL}\n`, stderr: "" });
    expect(requests().map((r) => `${r.method} ${r.url}`)).toEqual(["POST /comment", "POST /comment"]);
    for (const req of requests()) expect(req.body).toBe('{"body":"Eventually."}');
  });
});

describe("escalate comment: the round channel refusing", () => {
  // A closed round is refused like a revoked token (src/cli/channel.ts): exit 1, not a setting to fix.
  it("a 401 (the round is over) exits 1 and prints the app's message, naming ESCALATION_CHANNEL_TOKEN, without the usage", async () => {
    const message = "This round's channel is closed: ESCALATION_CHANNEL_TOKEN is good only while its round runs, and in the process that runs it.";
    replies = [{ status: 401, json: { error: "round-closed", message } }];
    const run = await escalate(["comment", "--body", "Too late."], roundEnv());
    expect(run).toEqual({ code: 1, stdout: "", stderr: `escalate: ${message}\n` });
    // Asked once: a 401 is not tried again.
    expect(requests().map((r) => `${r.method} ${r.url}`)).toEqual(["POST /comment"]);
  });

  it("a 401 prints whatever message the app sends", async () => {
    replies = [{ status: 401, json: { error: "round-closed", message: "Round 2 of octo/demo#7 has ended." } }];
    const run = await escalate(["comment", "--body", "Too late."], roundEnv());
    expect(run).toEqual({ code: 1, stdout: "", stderr: "escalate: Round 2 of octo/demo#7 has ended.\n" });
  });

  it("a 502 (GitHub failed the app) exits 1 with the app's message and no usage", async () => {
    replies = [{ status: 502, json: { error: "github", message: "GitHub refused the comment (HTTP 422): Validation Failed" } }];
    const run = await escalate(["comment", "--body", "Done."], roundEnv());
    expect(run).toEqual({ code: 1, stdout: "", stderr: "escalate: GitHub refused the comment (HTTP 422): Validation Failed\n" });
    expect(requests()).toHaveLength(1);
  });

  it("a 502 page that is not JSON exits 1 with its status and first line", async () => {
    replies = [{ status: 502, json: "Bad Gateway\nsecond line\n" }];
    const run = await escalate(["comment", "--body", "Done."], roundEnv());
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("escalate: HTTP 502: Bad Gateway\n");
  });

  it("a 400 (the app refuses the text) is bad usage: exit 2 with the message and comment's usage", async () => {
    replies = [{ status: 400, json: { error: "invalid", message: "The comment is 60123 characters as posted; at most 60000 are. Shorten it." } }];
    const run = await escalate(["comment", "--body", "Long."], roundEnv());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^escalate: The comment is 60123 characters as posted; at most 60000 are\. Shorten it\.\n/);
    expect(run.stderr).toContain(COMMENT_USAGE);
  });

  it("a 201 without a url is not taken for success", async () => {
    replies = [{ status: 201, json: { html_url: CHANNEL_COMMENT_URL } }];
    const run = await escalate(["comment", "--body", "Done."], roundEnv());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
  });

  it("a channel nobody listens on exits 1, saying it could not be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await escalate(["comment", "--body", "Done."], { ...roundEnv(), ESCALATION_CHANNEL_URL: dead });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`escalate: The app's round channel (${dead}) could not be reached`);
    expect(run.stderr).not.toContain("Usage:");
    // Nor does it fall back to GITHUB_TOKEN.
    expect(requests()).toEqual([]);
  });
});

describe("escalate comment: by hand, with GITHUB_TOKEN", () => {
  it("posts the agent's comment as rendered for the round on the issue and prints GitHub's html_url", async () => {
    const text = "Done; see DONE.md. <!-- escalation:ask {} -->";
    const run = await escalate(["comment", "--body", text], byHandEnv());
    expect(run).toEqual({ code: 0, stdout: `${GITHUB_COMMENT_URL}\n`, stderr: "" });
    expect(requests()).toHaveLength(1);
    const req = requests()[0]!;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/repos/octo/demo/issues/7/comments");
    expect(req.headers.authorization).toBe("token ghp_by_hand_token_123");
    expect(req.headers["content-type"]).toMatch(/^application\/json/);
    const body = (JSON.parse(req.body) as { body: string }).body;
    expect(body).toBe(renderAgentComment(text, 2));
    // The rendering is what it should be: marked as the agent's, no hidden marker left.
    expect(body).toContain("(round 2)");
    expect(body).not.toContain("<!--");
  });

  it("--repo and --issue pick another issue, and without ESCALATION_ROUND the round is 0", async () => {
    const run = await escalate(["comment", "--body", "Note.", "--repo", "other-org/other.repo", "--issue", "12"], {
      ...byHandEnv(),
      GITHUB_REPOSITORY: undefined,
      ESCALATION_ISSUE: undefined,
      ESCALATION_ROUND: undefined,
    });
    expect(run.code).toBe(0);
    expect(requests().map((r) => `${r.method} ${r.url}`)).toEqual(["POST /repos/other-org/other.repo/issues/12/comments"]);
    expect((JSON.parse(requests()[0]!.body) as { body: string }).body).toBe(renderAgentComment("Note.", 0));
  });

  it("exits 1 on GitHub refusing and prints its message", async () => {
    replies = [{ status: 403, json: { message: "Resource not accessible by integration" } }];
    const run = await escalate(["comment", "--body", "Note."], byHandEnv());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("escalate: GitHub refused the comment on octo/demo#7 (HTTP 403): Resource not accessible by integration");
    expect(run.stderr).not.toContain("ghp_by_hand_token_123");
  });
});

// Concurrent: each case is a separate process and none of them posts anything.
describe.concurrent("escalate comment: bad usage exits 2, says why and sends nothing", () => {
  it.for<[string, string[], Record<string, string | undefined>, RegExp]>([
    ["neither --body nor --body-file", ["comment"], {}, /exactly one of --body TEXT and --body-file FILE/],
    ["both --body and --body-file", ["comment", "--body", "a", "--body-file", "-"], {}, /exactly one of --body TEXT and --body-file FILE/],
    ["an empty --body", ["comment", "--body", ""], {}, /The comment is empty\./],
    ["a blank --body", ["comment", "--body", " \n\t "], {}, /The comment is empty\./],
    [
      "--repo other than the round's",
      ["comment", "--body", "x", "--repo", "other/repo"],
      {},
      /posts on its own issue only \(octo\/demo#7\), not other\/repo#7/,
    ],
    ["--issue other than the round's", ["comment", "--body", "x", "--issue", "8"], {}, /posts on its own issue only \(octo\/demo#7\), not octo\/demo#8/],
    ["an unknown flag", ["comment", "--body", "x", "--colour", "red"], {}, /Unknown option '--colour'/],
    ["a positional argument", ["comment", "--body", "x", "stray"], {}, /stray/],
    ["--body without a value", ["comment", "--body"], {}, /--body/],
    ["a bad --repo", ["comment", "--body", "x", "--repo", "no-slash"], {}, /--repo must be OWNER\/REPO \(got "no-slash"\)/],
    ["a bad --issue", ["comment", "--body", "x", "--issue", "0"], {}, /--issue must be an issue number \(got "0"\)/],
    [
      "a --body-file that does not exist",
      ["comment", "--body-file", "/nonexistent/escalate-note.md"],
      {},
      /--body-file \/nonexistent\/escalate-note\.md could not be read/,
    ],
    ["an empty body by hand", ["comment", "--body", ""], { ESCALATION_CHANNEL_URL: undefined, ESCALATION_CHANNEL_TOKEN: undefined }, /The comment is empty\./],
  ])("%s", async ([, args, env, message], { expect }) => {
    const tag = newTag();
    const run = await escalate(args, { ...roundEnv(tag), ...env });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^escalate: /);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain(COMMENT_USAGE);
    expect(sentWith(tag)).toEqual([]);
  });

  it("an empty --body-file - (nothing on stdin) is refused", async ({ expect }) => {
    const tag = newTag();
    const run = await escalate(["comment", "--body-file", "-"], roundEnv(tag), "\n");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^escalate: The comment is empty\./);
    expect(sentWith(tag)).toEqual([]);
  });

  it.for<[string, Record<string, string | undefined>, string]>([
    ["by hand without GITHUB_TOKEN", { ESCALATION_CHANNEL_URL: undefined, ESCALATION_CHANNEL_TOKEN: undefined, GITHUB_TOKEN: undefined }, "GITHUB_TOKEN"],
    ["the channel's URL without its token", { ESCALATION_CHANNEL_TOKEN: undefined }, "ESCALATION_CHANNEL_TOKEN"],
    ["the channel's token without its URL", { ESCALATION_CHANNEL_URL: undefined }, "ESCALATION_CHANNEL_URL"],
    ["no issue", { ESCALATION_ISSUE: undefined }, "ESCALATION_ISSUE"],
  ])("%s is one line naming the variable, exit 2, without the usage", async ([, env, variable], { expect }) => {
    const tag = newTag();
    const run = await escalate(["comment", "--body", "x"], { ...roundEnv(tag), ...env });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(new RegExp(`^escalate: .*${variable}.*\\n$`));
    expect(run.stderr.split("\n")).toHaveLength(2);
    expect(run.stderr).not.toContain("Usage:");
    expect(sentWith(tag)).toEqual([]);
  });

  it.for([["--help"], ["-h"]])("comment %s prints comment's usage with --body-file and exits 0", async ([flag], { expect }) => {
    const run = await escalate(["comment", flag!], {});
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout.startsWith(`${COMMENT_USAGE}\n`)).toBe(true);
    // The flag lines themselves, not only the synopsis that names both.
    expect(run.stdout).toMatch(/^ {2}--body-file FILE +read it from FILE \(- for stdin\)$/m);
    expect(run.stdout).toMatch(/^ {2}--body TEXT +\S/m);
    expect(run.stdout).toContain("Exit codes:");
  });

  it("help comment prints the same usage", async ({ expect }) => {
    const run = await escalate(["help", "comment"], {});
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith(`${COMMENT_USAGE}\n`)).toBe(true);
    expect(run.stdout).toMatch(/^ {2}--body-file FILE +read it from FILE \(- for stdin\)$/m);
  });
});
