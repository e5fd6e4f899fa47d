import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ASK_FILE, takeAskFile } from "../../../src/agent/askFile.js";
import { postAskFile } from "../../../src/round/postAskFile.js";
import { Octokit } from "@octokit/rest";
import { pino } from "pino";
import type { RoundGrant } from "../../../src/channel/roundGrants.js";
import { LoopEvents } from "../../../src/events.js";
import type { FeedbackOp } from "../../../src/payloads.js";
import { DEFAULT_WRITE_WINDOWS } from "../../../src/github/writeBudget.js";
import { parseAskComment } from "../../../src/protocol/ask.js";
import { storeRedis } from "../../support/storeRedis.js";

const { freshStore } = storeRedis();

interface Recorded {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let apiUrl: string;
let requests: Recorded[] = [];

beforeAll(async () => {
  // A loopback stand-in for GitHub's "create an issue comment".
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      requests.push({ url: req.url ?? "", headers: req.headers, body });
      res.writeHead(201, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ id: requests.length, html_url: `https://github.com/octo/demo/issues/7#issuecomment-${requests.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  requests = [];
});

/** A checkout with `text` in its ask file; returns the file's path. */
function askFileHolding(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "esc-askfile-")), ASK_FILE);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** The Redis SET NX CommentMarks.firstTime is, in memory. */
function marks() {
  const seen = new Set<string>();
  return { firstTime: async (what: string) => !seen.has(what) && Boolean(seen.add(what)) };
}

const QUESTION = {
  questions: [{ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"], default: "sqlite", timeout: "2h" }],
  context: "Adding the cache.",
};

describe("takeAskFile", () => {
  it("reads the ask_human tool's arguments as the draft `escalate ask` builds, and removes the file", async () => {
    const path = askFileHolding(JSON.stringify(QUESTION));
    const content = await takeAskFile(path);
    expect(content).toEqual({
      kind: "ask",
      digest: expect.stringMatching(/^[0-9a-f]{16}$/),
      draft: {
        questions: [{ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"], default: "sqlite", timeoutSeconds: 7200 }],
        context: "Adding the cache.",
      },
    });
    expect(existsSync(path)).toBe(false);
  });

  it("is none when the agent wrote no ask file", async () => {
    expect(await takeAskFile(join(tmpdir(), "esc-no-such-dir", ASK_FILE))).toEqual({ kind: "none" });
  });

  it.each([
    ["not JSON", "questions: which cache?", /^it is not JSON \(/],
    ["no questions", JSON.stringify({ context: "x" }), /^questions: /],
    ["a key the tool does not take", JSON.stringify({ ...QUESTION, urgency: "high" }), /Unrecognized key: "urgency"/],
    ["a timeout that is no duration", JSON.stringify({ questions: [{ text: "Which?", timeout: "soon" }] }), /questions\[0\]\.timeout/],
  ])("names what is wrong with %s, and removes the file", async (_what, text, problem) => {
    const path = askFileHolding(text);
    const content = await takeAskFile(path);
    expect(content).toEqual({ kind: "invalid", problem: expect.stringMatching(problem) });
    expect(existsSync(path)).toBe(false);
  });
});

describe("postAskFile", () => {
  const at = (path: string, round = 2): { path: string; grant: RoundGrant } => ({ path, grant: { installationId: 1, repo: "octo/demo", issue: 7, round } });
  /** The writes queued for the issue's feedback worker (what the app posts later). */
  let queued: Array<{ ops: readonly FeedbackOp[]; key: string }> = [];
  beforeEach(() => {
    queued = [];
  });
  /** The app's side: its installation client (the stand-in), its write budget in Redis, its feedback queue (recorded). */
  const app = (commentMarks = marks(), githubWrites = DEFAULT_WRITE_WINDOWS) => ({
    ...freshStore(),
    commentMarks,
    events: new LoopEvents(() => undefined),
    log: pino({ level: "silent" }),
    config: { githubWrites, statusDebounceMs: 0 },
    queues: {
      feedback: {
        add: (_target: unknown, ops: readonly FeedbackOp[], key: string) => {
          queued.push({ ops, key });
          return Promise.resolve(true);
        },
      },
    },
    github: { installation: () => Promise.resolve(new Octokit({ auth: "ghs_the_apps_token", baseUrl: apiUrl }) as never) },
  });

  it("while the app may not write (its write budget spent), the question goes to the issue's feedback queue, posted when it may", async () => {
    // One write a minute: round 2's ask takes it, round 3's finds it spent.
    const ports = app(marks(), { ...DEFAULT_WRITE_WINDOWS, perMinute: 1 });
    expect(await postAskFile(ports, at(askFileHolding(JSON.stringify(QUESTION)), 2))).toBe("");
    expect(requests).toHaveLength(1);
    expect(await postAskFile(ports, at(askFileHolding(JSON.stringify(QUESTION)), 3))).toBe("");
    expect(requests).toHaveLength(1);
    expect(queued).toHaveLength(1);
    const [op] = queued[0]!.ops;
    expect(op).toMatchObject({ type: "comment" });
    expect(parseAskComment((op as { body: string }).body)).toMatchObject({ round: 3, context: "Adding the cache." });
  });

  it("posts the ask comment with its marker, as the app's bot (the agent's token is read-only), as the round channel posts `escalate ask`'s", async () => {
    expect(await postAskFile(app(), at(askFileHolding(JSON.stringify(QUESTION))))).toBe("");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).toBe("/repos/octo/demo/issues/7/comments");
    expect(requests[0]!.headers.authorization).toBe("token ghs_the_apps_token");
    const ask = parseAskComment((JSON.parse(requests[0]!.body) as { body: string }).body);
    expect(ask).toMatchObject({
      round: 2,
      kind: "question",
      context: "Adding the cache.",
      questions: [{ text: "Which cache should the lookups use?", options: ["Redis", "SQLite"], default: "SQLite", timeoutSeconds: 7200 }],
    });
  });

  it("posts once when a retried job finds the same ask file in the same round", async () => {
    const once = app();
    expect(await postAskFile(once, at(askFileHolding(JSON.stringify(QUESTION))))).toBe("");
    expect(await postAskFile(once, at(askFileHolding(JSON.stringify(QUESTION))))).toBe("");
    expect(requests).toHaveLength(1);
    // The same question asked again in a later round is a new ask.
    expect(await postAskFile(once, at(askFileHolding(JSON.stringify(QUESTION)), 3))).toBe("");
    expect(requests).toHaveLength(2);
  });

  it("posts nothing for an invalid file, and returns one ⚠️ line saying what to fix", async () => {
    const line = await postAskFile(app(), at(askFileHolding(JSON.stringify({ questions: [] }))));
    expect(line).toMatch(
      /^ · ⚠️ the agent's ask file was not posted: questions: .+\. It must be JSON with the ask_human tool's arguments \(README, "The agent contract"\)\.$/,
    );
    expect(line.split("\n")).toHaveLength(1);
    expect(requests).toEqual([]);
  });

  it("says what the ask's own rules refuse, such as an approval with options", async () => {
    const line = await postAskFile(app(), at(askFileHolding(JSON.stringify({ kind: "approval", questions: [{ text: "Drop the table?", options: ["yes"] }] }))));
    expect(line).toContain("an approval has no options");
    expect(requests).toEqual([]);
  });
});
