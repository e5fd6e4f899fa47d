import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { readBody } from "../http/readBody.js";
import { CHANNEL_PATHS, parseGitPath, type ChannelRefusal } from "./channelPaths.js";
import { forwardGit } from "./forwardGit.js";
import { askForAgent, commentForAgent, type PostOutcome, type PostPorts } from "./postForAgent.js";
import { MAX_COMMANDS_BYTES, readPushCommands, refusalReport, refusedUpdates, type PushRequest } from "./receivePack.js";
import type { RoundGrant, RoundGrants } from "./roundGrants.js";

export type ChannelPorts = PostPorts & { grants: RoundGrants };

/** An ask or a comment is a few kilobytes; the channel reads no more. */
const MAX_JSON_BYTES = 128 * 1024;

const CommentRequest = z.object({ body: z.string() });

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The round channel (src/channel/channelPaths.ts): what an agent has the app write for it, checked
 * against its round's grant. Served on a loopback port to unsandboxed agents and through the egress
 * proxy to sandboxed ones; every request names its round by the credential alone.
 */
export function channelRoutes(services: ChannelPorts): Handler {
  return (req, res) => {
    void route(services, req, res).catch((error: unknown) => {
      services.log.error({ err: error }, "the round channel failed a request");
      if (!res.headersSent) refuse(res, 500, { error: "github", message: `The app failed the request: ${(error as Error).message}` });
      else res.destroy();
    });
  };
}

async function route(services: ChannelPorts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Absolute-form through the egress proxy, origin-form on the loopback port.
  const url = new URL(req.url ?? "/", "http://channel");
  const git = parseGitPath(url.pathname);
  const grant = services.grants.find(/^Bearer (\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "");
  if (!grant) {
    const message = "This round's channel is closed: ESCALATION_CHANNEL_TOKEN is good only while its round runs, and in the process that runs it.";
    return git ? text(res, 403, message) : refuse(res, 401, { error: "round-closed", message });
  }
  if (git) return gitRequest(req, res, grant, git, url);
  if (req.method !== "POST" || (url.pathname !== CHANNEL_PATHS.ask && url.pathname !== CHANNEL_PATHS.comment)) {
    return refuse(res, 404, { error: "not-found", message: `No ${req.method} ${url.pathname} here: POST ${CHANNEL_PATHS.ask} or ${CHANNEL_PATHS.comment}.` });
  }
  const raw = await readBody(req, MAX_JSON_BYTES);
  let input: unknown;
  try {
    input = raw === undefined ? undefined : JSON.parse(raw);
  } catch {
    return refuse(res, 400, { error: "invalid", message: "The request is not JSON." });
  }
  if (input === undefined) return refuse(res, 400, { error: "invalid", message: `The request is over ${MAX_JSON_BYTES} bytes.` });
  if (url.pathname === CHANNEL_PATHS.ask) return answer(res, await askForAgent(services, grant, input));
  const comment = CommentRequest.safeParse(input);
  if (!comment.success) return refuse(res, 400, { error: "invalid", message: 'The request must be JSON { "body": "…" }.' });
  return answer(res, await commentForAgent(services, grant, comment.data.body));
}

function answer(res: ServerResponse, outcome: PostOutcome): void {
  switch (outcome.kind) {
    case "posted":
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ url: outcome.url }));
      return;
    case "invalid":
      return refuse(res, 400, { error: "invalid", message: outcome.message });
    case "deferred":
      return refuse(res, 503, { error: "deferred", message: outcome.message }, { "retry-after": String(Math.ceil(outcome.retryInMs / 1000)) });
    case "failed":
      return refuse(res, 502, { error: "github", message: outcome.message });
  }
}

function refuse(res: ServerResponse, status: number, body: ChannelRefusal, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** git shows a text/plain body of a refused request on its "remote:" lines. */
function text(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${message}\n`);
}

/** git's smart-HTTP push to the round's repository: its ref advertisement, then the push, judged ref by ref. */
async function gitRequest(req: IncomingMessage, res: ServerResponse, grant: RoundGrant, git: { repo: string; rest: string }, url: URL): Promise<void> {
  if (!grant.push) return text(res, 403, "This round has no checkout (the workspace is off): it pushes nothing.");
  if (git.repo.toLowerCase() !== grant.repo.toLowerCase()) return text(res, 403, `This round pushes to ${grant.repo} only, not ${git.repo}.`);
  const upstream = (rest: string) => new URL(`${grant.push!.cloneUrl.replace(/\/$/, "")}${rest}`);
  if (req.method === "GET" && git.rest === "/info/refs") {
    if (url.searchParams.get("service") !== "git-receive-pack")
      return text(res, 403, "Only pushes go through the app: fetch from origin as the checkout is set up.");
    return forwardGit(req, res, upstream("/info/refs?service=git-receive-pack"), grant.push.token);
  }
  if (req.method !== "POST" || git.rest !== "/git-receive-pack") return text(res, 404, `No ${req.method} ${git.rest} here: git pushes only.`);
  const encoding = req.headers["content-encoding"];
  if (encoding && encoding !== "identity") return text(res, 415, `A push sent as ${encoding} is not taken: push with git's defaults.`);
  const read = await readCommands(req);
  if (read.kind === "unreadable") return refusePush(req, res, new Map(), [], read.problem);
  const refused = refusedUpdates(read.updates, grant.push.branch);
  if (refused.size > 0)
    return refusePush(req, res, refused, read.capabilities, `escalation: the agent pushes only to ${grant.push.branch}; the app refused this push.`);
  forwardGit(req, res, upstream("/git-receive-pack"), grant.push.token, { head: read.head, rest: req });
}

/** The push's command list, read off the request (which is left paused after it); the bytes read go up first. */
function readCommands(req: IncomingMessage): Promise<(PushRequest & { head: Buffer }) | { kind: "unreadable"; problem: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: (PushRequest & { head: Buffer }) | { kind: "unreadable"; problem: string }) => {
      req.pause();
      req.off("data", onData).off("end", onEnd).off("error", onEnd);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      const head = Buffer.concat(chunks);
      const read = readPushCommands(head);
      if (read) return done({ ...read, head });
      if (size > MAX_COMMANDS_BYTES) done({ kind: "unreadable", problem: `the push's update list is over ${MAX_COMMANDS_BYTES} bytes` });
    };
    const onEnd = () => done({ kind: "unreadable", problem: "the push's request ended before its update list did" });
    req.on("data", onData).on("end", onEnd).on("error", onEnd);
  });
}

/** The most of a refused push's pack the channel reads (and drops) so that git hears the refusal rather than a broken pipe. */
const MAX_DRAINED_BYTES = 512 * 1024 * 1024;

/** Answers a refused push with git's report (each ref and why), once git has sent its pack. */
function refusePush(req: IncomingMessage, res: ServerResponse, refused: ReadonlyMap<string, string>, capabilities: string[], message: string): void {
  const report = refused.size > 0 ? refusalReport(refused, capabilities, message) : undefined;
  let drained = 0;
  req.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAINED_BYTES) req.destroy();
  });
  req.once("end", () => {
    if (!report) return text(res, 403, message);
    res.writeHead(200, { "content-type": "application/x-git-receive-pack-result", "cache-control": "no-cache" }).end(report);
  });
  req.resume();
}
