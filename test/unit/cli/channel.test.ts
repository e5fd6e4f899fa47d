import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CHANNEL_PATHS, channelGitUrl, parseGitPath } from "../../../src/channel/channelPaths.js";
import { readAskEnv } from "../../../src/cli/ask/askEnv.js";
import { channelOf, postThroughChannel, type Channel } from "../../../src/cli/channel.js";
import { EnvironmentError, UsageError } from "../../../src/cli/usage.js";
import { GitHubError } from "../../../src/errors.js";

/** The agent's environment as the CLI reads it: no proxy set, so the channel is dialled directly. */
const envWith = (vars: Record<string, string> = {}) => readAskEnv({ GITHUB_REPOSITORY: "acme/widgets", ESCALATION_ISSUE: "7", ...vars });

describe("channelOf", () => {
  it("is undefined outside a round (neither variable set)", () => {
    expect(channelOf(envWith())).toBeUndefined();
  });

  it("is the URL and token when both are set", () => {
    expect(channelOf(envWith({ ESCALATION_CHANNEL_URL: "http://127.0.0.1:4000", ESCALATION_CHANNEL_TOKEN: "chan_secret" }))).toEqual({
      url: "http://127.0.0.1:4000",
      token: "chan_secret",
    });
  });

  it.each([
    ["only the URL", { ESCALATION_CHANNEL_URL: "http://127.0.0.1:4000" }, "ESCALATION_CHANNEL_TOKEN"],
    ["only the token", { ESCALATION_CHANNEL_TOKEN: "chan_secret" }, "ESCALATION_CHANNEL_URL"],
  ])("%s is an EnvironmentError naming the missing one", (_name, vars, missing) => {
    const error = (() => {
      try {
        return channelOf(envWith(vars));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).variables).toEqual([missing]);
    expect((error as Error).message).toMatch(new RegExp(`^${missing} is not set`));
  });
});

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

describe("postThroughChannel, against a real HTTP server on the loopback", () => {
  let server: Server;
  let base: string;
  const seen: Seen[] = [];
  /** What the server answers next. */
  let reply: { status: number; body: string; type?: string; retryAfter?: string } = { status: 201, body: "{}" };
  /** Answered first, one request each, before `reply`. */
  const first: Array<typeof reply> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        seen.push({ method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
        const answer = first.shift() ?? reply;
        const retryAfter: Record<string, string> = answer.retryAfter ? { "retry-after": answer.retryAfter } : {};
        response.writeHead(answer.status, { "content-type": answer.type ?? "application/json", ...retryAfter }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
  });

  const channel = (): Channel => ({ url: base, token: "chan_secret" });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => new Error("resolved"),
      (e: unknown) => e,
    );

  it("POSTs the JSON payload with the bearer token and returns the comment's URL from a 201", async () => {
    reply = { status: 201, body: JSON.stringify({ url: "https://github.example/acme/widgets/issues/7#issuecomment-1" }) };
    const url = await postThroughChannel(channel(), envWith(), CHANNEL_PATHS.comment, { body: "Done: see the PR." });
    expect(url).toBe("https://github.example/acme/widgets/issues/7#issuecomment-1");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/comment" });
    expect(seen[0]!.headers.authorization).toBe("Bearer chan_secret");
    expect(seen[0]!.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(seen[0]!.body)).toEqual({ body: "Done: see the PR." });
  });

  it("joins the path to a channel URL with a trailing slash or a path of its own", async () => {
    reply = { status: 201, body: JSON.stringify({ url: "u" }) };
    await postThroughChannel({ url: `${base}/`, token: "t" }, envWith(), CHANNEL_PATHS.ask, { v: 1 });
    await postThroughChannel({ url: `${base}/round/`, token: "t" }, envWith(), CHANNEL_PATHS.ask, { v: 1 });
    expect(seen.map((s) => s.url)).toEqual(["/ask", "/round/ask"]);
  });

  it("a 400 is a UsageError with the app's message", async () => {
    reply = { status: 400, body: JSON.stringify({ error: "invalid", message: "The comment is empty." }) };
    const error = await failure(postThroughChannel(channel(), envWith(), CHANNEL_PATHS.comment, { body: "" }));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe("The comment is empty.");
  });

  it("a 401 (the round is over) is a GitHubError with the app's message: refused, like a revoked token, not a setting to fix", async () => {
    reply = { status: 401, body: JSON.stringify({ error: "round-closed", message: "The round is over." }) };
    const error = await failure(postThroughChannel(channel(), envWith(), CHANNEL_PATHS.comment, { body: "x" }));
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).not.toBeInstanceOf(EnvironmentError);
    expect(error).toMatchObject({ message: "The round is over.", status: 401 });
  });

  it("a 503 (the app may not write now) is tried again after the Retry-After it gives, and the comment then posted", async () => {
    first.push({ status: 503, retryAfter: "1", body: JSON.stringify({ error: "deferred", message: "The write budget is spent; retry in 1 s." }) });
    reply = { status: 201, body: JSON.stringify({ url: "https://github.example/acme/widgets/issues/7#issuecomment-2" }) };
    const started = Date.now();
    const url = await postThroughChannel(channel(), envWith(), CHANNEL_PATHS.comment, { body: "x" });
    expect(url).toBe("https://github.example/acme/widgets/issues/7#issuecomment-2");
    expect(seen.map((s) => s.body)).toEqual(['{"body":"x"}', '{"body":"x"}']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("a 503 still answered after the last try is a GitHubError with status 503 and the app's message", async () => {
    reply = { status: 503, body: JSON.stringify({ error: "deferred", message: "The write budget is spent; retry in 60 s." }) };
    const error = await failure(
      postThroughChannel(channel(), envWith(), CHANNEL_PATHS.comment, { body: "x" }, { maxRetries: 2, minTimeout: 10, maxTimeout: 20 }),
    );
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).not.toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ status: 503, message: "The write budget is spent; retry in 60 s." });
    expect(seen).toHaveLength(3);
  });

  it("a page that is not JSON is a GitHubError quoting its status and first line", async () => {
    reply = { status: 502, body: "Bad Gateway\n<html>…</html>", type: "text/html" };
    const error = await failure(postThroughChannel(channel(), envWith(), CHANNEL_PATHS.ask, { v: 1 }));
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ status: 502, message: "HTTP 502: Bad Gateway" });
  });

  it("a 201 without a URL is not taken as posted", async () => {
    reply = { status: 201, body: JSON.stringify({}) };
    const error = await failure(postThroughChannel(channel(), envWith(), CHANNEL_PATHS.ask, { v: 1 }));
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ status: 201 });
  });

  it("a channel nobody listens on is a GitHubError without a status, saying it could not be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(postThroughChannel({ url, token: "t" }, envWith(), CHANNEL_PATHS.comment, { body: "x" }));
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).status).toBeUndefined();
    expect((error as Error).message).toContain(`The app's round channel (${url}) could not be reached`);
  });
});

describe("parseGitPath and channelGitUrl", () => {
  it("reads the repository and the rest of a git request's path, with or without .git", () => {
    expect(parseGitPath("/git/acme/widgets.git/info/refs")).toEqual({ repo: "acme/widgets", rest: "/info/refs" });
    expect(parseGitPath("/git/acme/widgets/info/refs")).toEqual({ repo: "acme/widgets", rest: "/info/refs" });
    expect(parseGitPath("/git/acme/widgets.git/git-receive-pack")).toEqual({ repo: "acme/widgets", rest: "/git-receive-pack" });
    expect(parseGitPath("/git/my-org/my.repo_1.git/info/refs")).toEqual({ repo: "my-org/my.repo_1", rest: "/info/refs" });
  });

  it.each([
    "/ask",
    "/comment",
    "/git/acme/widgets.git",
    "/git/acme",
    "/git/acme/widgets",
    "/git/acme/wid gets/info/refs",
    "/other/acme/widgets.git/info/refs",
    "/",
  ])("is undefined for another path (%s)", (path) => {
    expect(parseGitPath(path)).toBeUndefined();
  });

  it("channelGitUrl gives a URL whose path parseGitPath reads back", () => {
    const url = channelGitUrl("http://escalation.invalid:8080/", "acme/widgets");
    expect(url).toBe("http://escalation.invalid:8080/git/acme/widgets.git");
    expect(parseGitPath(`${new URL(url).pathname}/info/refs`)).toEqual({ repo: "acme/widgets", rest: "/info/refs" });
  });
});
