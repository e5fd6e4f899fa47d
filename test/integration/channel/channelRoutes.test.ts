import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Octokit } from "@octokit/rest";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { channelGitUrl } from "../../../src/channel/channelPaths.js";
import { channelRoutes } from "../../../src/channel/channelRoutes.js";
import { startChannelServer, type ChannelServer } from "../../../src/channel/channelServer.js";
import { RoundGrants, type RoundGrant } from "../../../src/channel/roundGrants.js";
import { LoopEvents } from "../../../src/events.js";
import { DEFAULT_WRITE_WINDOWS, SEND_SLACK_MS } from "../../../src/github/writeBudget.js";
import { renderAgentComment } from "../../../src/protocol/agentComment.js";
import { newAskId, parseAskComment, renderAskComment, validateAsk } from "../../../src/protocol/ask.js";
import type { WriteWindows } from "../../../src/store/writeBudgetLog.js";
import { basicAuthorization } from "../../../src/workspace/gitCredentials.js";
import { storeRedis } from "../../support/storeRedis.js";
import { ISOLATED_GIT_ENV } from "../../support/gitServer.js";

/**
 * The round channel end to end: channelRoutes served by startChannelServer on a loopback port, the
 * write budget in the tests' Redis, and one loopback stand-in for GitHub — its REST API (issue
 * comments, recorded) and its smart-HTTP git server (a real bare repository behind
 * `git http-backend`, run as a CGI). Only 127.0.0.1 is ever dialled.
 */

const { freshStore } = storeRedis();

const REPO = "acme/widgets";
const BRANCH = "escalation/issue-7";
const APP_TOKEN = "ghs_app_write";

/** What the GitHub stand-in was sent: every request, REST or git. */
interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

let github: Server;
let githubUrl: string;
let seen: Seen[] = [];
/** How the stand-in answers the next comments: 201 with the comment, or GitHub's refusal. */
let commentReply: { status: number; json: unknown } | undefined;

let dir: string;
/** GIT_PROJECT_ROOT of the stand-in's git server; the bare repository is `${root}/acme/widgets.git`. */
let root: string;
let bare: string;
let work: string;

const gitEnv = ISOLATED_GIT_ENV;

/** Runs git (async: the servers answering it run in this process); resolves with its exit code and output. */
const git = (args: string[], cwd?: string) =>
  promisify(execFile)("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, env: gitEnv }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout: stdout.trim(), stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "", stderr: error.stderr ?? "" }),
  );

/** git that must succeed: its stdout. */
async function mustGit(args: string[], cwd?: string): Promise<string> {
  const result = await git(args, cwd);
  if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/** GitHub's smart-HTTP git server, as git ships it: `git http-backend` as a CGI, the request's body piped in. */
function httpBackend(req: IncomingMessage, res: ServerResponse, url: URL): void {
  const child = spawn("git", ["http-backend"], {
    env: {
      ...gitEnv,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      REQUEST_METHOD: req.method ?? "GET",
      QUERY_STRING: url.search.replace(/^\?/, ""),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      // receive-pack is served only to an authenticated user.
      REMOTE_USER: "x-access-token",
      REMOTE_ADDR: "127.0.0.1",
      GIT_PROTOCOL: typeof req.headers["git-protocol"] === "string" ? req.headers["git-protocol"] : "",
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let head = Buffer.alloc(0);
  let inBody = false;
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdout.on("data", (chunk: Buffer) => {
    if (inBody) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const crlf = head.indexOf("\r\n\r\n");
    const lf = head.indexOf("\n\n");
    const end = crlf >= 0 && (lf < 0 || crlf < lf) ? { at: crlf, length: 4 } : lf >= 0 ? { at: lf, length: 2 } : undefined;
    if (!end) return;
    inBody = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end.at).toString("latin1").split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "status") status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end.at + end.length));
  });
  child.on("close", (code) => {
    if (!inBody) res.writeHead(500, { "content-type": "text/plain" }).end(`git http-backend exited ${code}: ${stderr}`);
    else res.end();
  });
  req.pipe(child.stdin);
  child.stdin.on("error", () => undefined);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "channel-routes-"));
  root = join(dir, "github");
  bare = join(root, `${REPO}.git`);
  work = join(dir, "work");
  await mustGit(["init", "--bare", "-q", "-b", "main", bare]);
  await mustGit(["init", "-q", "-b", "main", work]);
  await mustGit(["commit", "-q", "--allow-empty", "-m", "first"], work);
  await mustGit(["push", "-q", bare, "main:refs/heads/main"], work);

  github = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const record: Seen = { method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body: "" };
    seen.push(record);
    if (url.pathname.startsWith(`/${REPO}.git/`)) return httpBackend(req, res, url);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      record.body = Buffer.concat(chunks).toString("utf8");
      const comment = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
      if (req.method !== "POST" || !comment) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "Not Found" }));
        return;
      }
      const id = seen.length;
      const reply = commentReply ?? {
        status: 201,
        json: { id, html_url: `https://github.com/${comment[1]}/${comment[2]}/issues/${comment[3]}#issuecomment-${id}` },
      };
      res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
  githubUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (github ? github.close(() => resolve()) : resolve()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
  commentReply = undefined;
});

const opened: ChannelServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

/** Octokit's own log (it reports each refused request on stderr) says nothing here. */
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const GRANT: RoundGrant = { installationId: 41, repo: REPO, issue: 7, round: 2 };

/** The app's side of the channel: its grants, its write budget in a fresh Redis prefix, its installation client (the stand-in). */
async function openChannel(githubWrites: WriteWindows = DEFAULT_WRITE_WINDOWS): Promise<{ url: string; grants: RoundGrants }> {
  const grants = new RoundGrants();
  const server = await startChannelServer(
    channelRoutes({
      ...freshStore(),
      events: new LoopEvents(() => undefined),
      log: pino({ level: "silent" }),
      config: { githubWrites },
      github: { installation: () => Promise.resolve(new Octokit({ auth: "ghs_the_apps_token", baseUrl: githubUrl, log: quiet }) as never) },
      grants,
    }),
  );
  opened.push(server);
  return { url: server.url, grants };
}

/** One request to the channel, as the CLI sends it. */
async function send(
  url: string,
  path: string,
  options: { method?: string; credential?: string; authorization?: string; json?: unknown; body?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const headers: Record<string, string> = {};
  const authorization = options.authorization ?? (options.credential === undefined ? undefined : `Bearer ${options.credential}`);
  if (authorization !== undefined) headers.authorization = authorization;
  const body = options.body ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${url}${path}`, { method: options.method ?? (body === undefined ? "GET" : "POST"), headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The comments GitHub was sent: their bodies. */
const postedComments = () =>
  seen
    .filter((request) => request.method === "POST" && request.url.endsWith("/comments"))
    .map((request) => (JSON.parse(request.body) as { body: string }).body);

const ASK = {
  v: 1,
  id: newAskId(),
  kind: "question",
  round: 99,
  questions: [{ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"], default: "sqlite", timeoutSeconds: 7200 }],
  context: "Adding the cache.",
};

describe("a request without an open round's credential", () => {
  it.each([
    ["no credential", () => ({})],
    ["an unknown credential", () => ({ credential: "bm90LWEtcm91bmQtY3JlZGVudGlhbC1hdC1hbGwtYWFhYWFh" })],
    ["a credential that is not Bearer", (credential: string) => ({ authorization: `Basic ${credential}` })],
    ["a closed round's credential", (credential: string, grants: RoundGrants) => (grants.close(credential), { credential })],
  ] as Array<[string, (credential: string, grants: RoundGrants) => { credential?: string; authorization?: string }]>)(
    "%s: 401 round-closed for /ask and /comment, 403 text for git, and nothing reaches GitHub",
    async (_what, auth) => {
      const { url, grants } = await openChannel();
      const credential = grants.issue({ ...GRANT, push: { branch: BRANCH, cloneUrl: `${githubUrl}/${REPO}.git`, token: APP_TOKEN } });
      const options = auth(credential, grants);

      for (const [path, json] of [
        ["/ask", ASK],
        ["/comment", { body: "Progress: done with the cache." }],
      ] as const) {
        const answer = await send(url, path, { ...options, json });
        expect(answer.status, path).toBe(401);
        expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
        expect(answer.json).toEqual({ error: "round-closed", message: expect.stringContaining("closed") });
      }

      const refs = await send(url, `/git/${REPO}.git/info/refs?service=git-receive-pack`, options);
      expect(refs.status).toBe(403);
      expect(refs.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(refs.text).toContain("channel is closed");
      expect(refs.json).toBeUndefined();
      const pack = await send(url, `/git/${REPO}.git/git-receive-pack`, { ...options, body: "0000" });
      expect(pack.status).toBe(403);
      expect(pack.headers.get("content-type")).toMatch(/^text\/plain/);

      expect(seen).toEqual([]);
    },
  );

  it("the same credential works until its round is closed", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    expect((await send(url, "/comment", { credential, json: { body: "one" } })).status).toBe(201);
    grants.close(credential);
    expect((await send(url, "/comment", { credential, json: { body: "two" } })).status).toBe(401);
    expect(postedComments()).toHaveLength(1);
  });
});

describe("POST /ask", () => {
  it("posts the ask on the grant's issue as the app, for the grant's round whatever the ask said; 201 { url }", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const answer = await send(url, "/ask", { credential, json: ASK });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({ url: "https://github.com/acme/widgets/issues/7#issuecomment-1" });

    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe("/repos/acme/widgets/issues/7/comments");
    expect(seen[0]!.authorization).toBe("token ghs_the_apps_token");
    const [body] = postedComments();
    const ask = parseAskComment(body!);
    expect(ask).toMatchObject({
      round: 2,
      id: ASK.id,
      kind: "question",
      context: "Adding the cache.",
      questions: [{ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"], default: "SQLite", timeoutSeconds: 7200 }],
    });
    expect(ask!.round).not.toBe(99);
  });

  it("an ask without questions is 400 invalid naming the field, and nothing is posted", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const { questions: _questions, ...noQuestions } = ASK;
    const answer = await send(url, "/ask", { credential, json: noQuestions });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: "invalid", message: expect.stringContaining("questions") });
    expect(answer.json.message).not.toMatch(/^Invalid ask: /);

    const empty = await send(url, "/ask", { credential, json: { ...ASK, questions: [] } });
    expect(empty.status).toBe(400);
    expect(empty.json).toEqual({ error: "invalid", message: expect.stringContaining("questions") });
    expect(seen).toEqual([]);
  });

  it("a request that is not JSON, or not an object, is 400 invalid", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const notJson = await send(url, "/ask", { credential, body: "questions: which cache?" });
    expect(notJson.status).toBe(400);
    expect(notJson.json).toEqual({ error: "invalid", message: "The request is not JSON." });
    for (const json of [null, "an ask", 7, [ASK]]) {
      const answer = await send(url, "/ask", { credential, json });
      expect(answer.status, JSON.stringify(json).slice(0, 20)).toBe(400);
      expect(answer.json).toMatchObject({ error: "invalid" });
    }
    expect(seen).toEqual([]);
  });

  it("a request over 128 KiB is 400 invalid, unread, and nothing is posted", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const big = JSON.stringify({ ...ASK, context: "x".repeat(128 * 1024) });
    const answer = await send(url, "/ask", { credential, body: big });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: "invalid", message: expect.stringContaining(String(128 * 1024)) });
    expect(seen).toEqual([]);
    // Just under the limit is read (and then judged: the context is too long for an ask).
    const under = await send(url, "/ask", { credential, body: JSON.stringify({ ...ASK, context: "x".repeat(100 * 1024) }) });
    expect(under.status).toBe(400);
    expect(under.json).toEqual({ error: "invalid", message: expect.stringContaining("context") });
  });
});

describe("POST /comment", () => {
  it("posts the agent's words under the agent's heading for the grant's round; 201 { url }", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue({ ...GRANT, round: 5 });
    const text = "Progress: the cache is in; tests next.";
    const answer = await send(url, "/comment", { credential, json: { body: text } });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({ url: "https://github.com/acme/widgets/issues/7#issuecomment-1" });
    expect(seen.map((request) => request.url)).toEqual(["/repos/acme/widgets/issues/7/comments"]);
    expect(postedComments()).toEqual([renderAgentComment(text, 5)]);
    expect(postedComments()[0]).toContain("(round 5)");
  });

  it("a comment carrying an ask marker is posted without a marker the loop would read", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const forged = renderAskComment(validateAsk({ ...ASK, round: 2 }));
    expect(parseAskComment(forged)).toBeDefined();
    const answer = await send(url, "/comment", { credential, json: { body: forged } });
    expect(answer.status).toBe(201);
    const [posted] = postedComments();
    expect(posted).toBe(renderAgentComment(forged, 2));
    expect(posted).not.toContain("<!--");
    expect(parseAskComment(posted!)).toBeUndefined();
  });

  it.each([
    ["an empty body", { body: "" }],
    ["a blank body", { body: " \n\t " }],
  ])("%s is 400 invalid, and nothing is posted", async (_what, json) => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const answer = await send(url, "/comment", { credential, json });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: "invalid", message: "The comment is empty." });
    expect(seen).toEqual([]);
  });

  it.each([
    ["no body", { text: "hello" }],
    ["a body that is no string", { body: 7 }],
    ["an array", ["hello"]],
    ["a string", "hello"],
  ])("a request of the wrong shape (%s) is 400 invalid", async (_what, json) => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const answer = await send(url, "/comment", { credential, json });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: "invalid", message: expect.stringContaining('"body"') });
    expect(seen).toEqual([]);
  });

  it("a comment longer than GitHub takes, as posted, is 400 invalid", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    // 50,000 characters grow to 65,000 as posted: every "<!--" is escaped.
    const answer = await send(url, "/comment", { credential, json: { body: "<!--".repeat(12_500) } });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: "invalid", message: expect.stringMatching(/characters as posted/) });
    expect(seen).toEqual([]);
  });
});

describe("other requests", () => {
  it.each([
    ["GET", "/ask"],
    ["GET", "/comment"],
    ["POST", "/issues"],
    ["PUT", "/ask"],
  ])("%s %s is 404 not-found", async (method, path) => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const answer = await send(url, path, { method, credential, body: method === "GET" ? undefined : JSON.stringify({ body: "x" }) });
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ error: "not-found" });
    expect(seen).toEqual([]);
  });
});

describe("the write budget and GitHub", () => {
  it("past the installation's write budget a comment is 503 deferred with Retry-After, and GitHub gets none", async () => {
    const { url, grants } = await openChannel({ ...DEFAULT_WRITE_WINDOWS, perMinute: 1 });
    const credential = grants.issue(GRANT);
    expect((await send(url, "/comment", { credential, json: { body: "first" } })).status).toBe(201);
    const second = await send(url, "/comment", { credential, json: { body: "second" } });
    expect(second.status).toBe(503);
    expect(second.json).toEqual({ error: "deferred", message: expect.stringContaining("write budget per minute") });
    const retryAfter = second.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // The minute's write counts from its grant plus the send slack: at most a minute and that slack away.
    expect(Number(retryAfter)).toBeLessThanOrEqual(Math.ceil((DEFAULT_WRITE_WINDOWS.minuteMs + SEND_SLACK_MS) / 1000));
    // An ask draws on the same budget.
    expect((await send(url, "/ask", { credential, json: ASK })).status).toBe(503);
    expect(seen).toHaveLength(1);
    expect(postedComments()).toEqual([renderAgentComment("first", GRANT.round)]);
  });

  it("GitHub refusing the comment is 502 github", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    commentReply = { status: 403, json: { message: "Resource not accessible by integration" } };
    const answer = await send(url, "/comment", { credential, json: { body: "hello" } });
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({ error: "github", message: expect.stringContaining("acme/widgets#7") });
    expect(answer.json.message).toContain("Resource not accessible by integration");
    const ask = await send(url, "/ask", { credential, json: ASK });
    expect(ask.status).toBe(502);
    expect(ask.json).toMatchObject({ error: "github" });
    expect(seen).toHaveLength(2);
  });
});

describe("git pushes through the channel", () => {
  const pushGrant = (): RoundGrant => ({ ...GRANT, push: { branch: BRANCH, cloneUrl: `${githubUrl}/${REPO}.git`, token: APP_TOKEN } });
  /** `git push` as the agent's git sends it: to the channel's URL of the repository, with the round's credential. */
  const push = (channelUrl: string, credential: string | undefined, refspec: string, repo = REPO) =>
    git([...(credential ? ["-c", `http.extraHeader=Authorization: Bearer ${credential}`] : []), "push", channelGitUrl(channelUrl, repo), refspec], work);
  const branchOf = (ref: string) => git(["rev-parse", "--verify", "-q", ref], bare).then((result) => (result.code === 0 ? result.stdout : undefined));

  let mainBefore: string | undefined;
  beforeAll(async () => {
    mainBefore = await branchOf("refs/heads/main");
  });

  it("a push to the round's branch reaches GitHub as the app (its token, never the credential)", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(pushGrant());
    await mustGit(["commit", "-q", "--allow-empty", "-m", "the agent's work"], work);
    const head = await mustGit(["rev-parse", "HEAD"], work);

    const result = await push(url, credential, `HEAD:refs/heads/${BRANCH}`);
    expect(result.stderr).not.toContain("rejected");
    expect(result.code).toBe(0);
    expect(await branchOf(`refs/heads/${BRANCH}`)).toBe(head);
    expect(await branchOf("refs/heads/main")).toBe(mainBefore);

    // The advertisement and the push both went up, as the app.
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      `GET /${REPO}.git/info/refs?service=git-receive-pack`,
      `POST /${REPO}.git/git-receive-pack`,
    ]);
    for (const request of seen) expect(request.authorization).toBe(`Basic ${Buffer.from(`x-access-token:${APP_TOKEN}`).toString("base64")}`);
    expect(basicAuthorization(APP_TOKEN)).toBe(seen[0]!.authorization);
    expect(JSON.stringify(seen)).not.toContain(credential);
  });

  it("a push to main is rejected by the channel, git showing [remote rejected]; GitHub gets no push", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(pushGrant());
    await mustGit(["commit", "-q", "--allow-empty", "-m", "aimed at main"], work);

    const result = await push(url, credential, "HEAD:refs/heads/main");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("[remote rejected]");
    expect(result.stderr).toContain(`the agent pushes only to its branch ${BRANCH}`);
    expect(result.stderr).toContain(`remote: escalation: the agent pushes only to ${BRANCH}`);
    expect(await branchOf("refs/heads/main")).toBe(mainBefore);
    // Only the advertisement went up; the pack did not.
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([`GET /${REPO}.git/info/refs?service=git-receive-pack`]);

    // Nor does the round's branch go up with main in one push.
    const before = await branchOf(`refs/heads/${BRANCH}`);
    const mixed = await git(
      ["-c", `http.extraHeader=Authorization: Bearer ${credential}`, "push", channelGitUrl(url, REPO), "HEAD:refs/heads/main", `HEAD:refs/heads/${BRANCH}`],
      work,
    );
    expect(mixed.code).not.toBe(0);
    expect(mixed.stderr).toMatch(/\[remote rejected\] +HEAD -> escalation\/issue-7 \(refused with the rest of this push\)/);
    expect(await branchOf(`refs/heads/${BRANCH}`)).toBe(before);
    expect(await branchOf("refs/heads/main")).toBe(mainBefore);
  });

  it("deleting the round's branch is rejected", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(pushGrant());
    await mustGit(["commit", "-q", "--allow-empty", "-m", "before the delete"], work);
    expect((await push(url, credential, `HEAD:refs/heads/${BRANCH}`)).code).toBe(0);
    const before = await branchOf(`refs/heads/${BRANCH}`);
    const result = await push(url, credential, `:refs/heads/${BRANCH}`);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("[remote rejected]");
    expect(await branchOf(`refs/heads/${BRANCH}`)).toBe(before);
  });

  it("a round without a checkout pushes nothing: 403 text naming the workspace, shown by git", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(GRANT);
    const refs = await send(url, `/git/${REPO}.git/info/refs?service=git-receive-pack`, { credential });
    expect(refs.status).toBe(403);
    expect(refs.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(refs.text).toContain("workspace");

    const result = await push(url, credential, `HEAD:refs/heads/${BRANCH}`);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("workspace");
    expect(seen).toEqual([]);
  });

  it("a push to another repository is 403", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(pushGrant());
    const refs = await send(url, "/git/acme/gadgets.git/info/refs?service=git-receive-pack", { credential });
    expect(refs.status).toBe(403);
    expect(refs.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(refs.text).toContain("acme/gadgets");
    const pack = await send(url, "/git/acme/gadgets.git/git-receive-pack", { credential, body: "0000" });
    expect(pack.status).toBe(403);

    const result = await push(url, credential, `HEAD:refs/heads/${BRANCH}`, "acme/gadgets");
    expect(result.code).not.toBe(0);
    expect(seen).toEqual([]);
  });

  it("fetching through the channel is 403: upload-pack is not served", async () => {
    const { url, grants } = await openChannel();
    const credential = grants.issue(pushGrant());
    const refs = await send(url, `/git/${REPO}.git/info/refs?service=git-upload-pack`, { credential });
    expect(refs.status).toBe(403);
    expect(refs.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(refs.text).toContain("Only pushes");
    const bareRefs = await send(url, `/git/${REPO}.git/info/refs`, { credential });
    expect(bareRefs.status).toBe(403);
    const pack = await send(url, `/git/${REPO}.git/git-upload-pack`, { credential, body: "0000" });
    expect(pack.status).toBe(404);

    const fetched = await git(["-c", `http.extraHeader=Authorization: Bearer ${credential}`, "fetch", channelGitUrl(url, REPO), "main"], work);
    expect(fetched.code).not.toBe(0);
    expect(seen).toEqual([]);
  });
});
