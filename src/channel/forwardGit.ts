import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { basicAuthorization } from "../workspace/gitCredentials.js";

/** A push that goes quiet this long is dropped (a large pack to a slow GitHub still moves). */
const IDLE_MS = 10 * 60_000;

/** The headers of git's request that GitHub reads; the agent's own credentials never go on. */
const FORWARDED = ["content-type", "accept", "user-agent", "git-protocol", "accept-encoding"];

/**
 * Sends one of the agent's git requests to GitHub as the app (its token for the repository, which
 * the agent never holds) and GitHub's answer back as it comes: `url` the repository's smart-HTTP
 * endpoint, `body` what goes up (the bytes already read, then the rest of the request).
 */
export function forwardGit(req: IncomingMessage, res: ServerResponse, url: URL, token: string, body?: { head: Buffer; rest: Readable }): void {
  const headers: Record<string, string> = { authorization: basicAuthorization(token) };
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const upstream = send(url, { method: req.method, headers });
  upstream.setTimeout(IDLE_MS, () => upstream.destroy(new Error("GitHub did not answer in time")));
  upstream.on("response", (answer) => {
    const out: Record<string, string> = {};
    for (const name of ["content-type", "cache-control", "content-encoding", "expires", "pragma"]) {
      const value = answer.headers[name];
      if (typeof value === "string") out[name] = value;
    }
    res.writeHead(answer.statusCode ?? 502, out);
    answer.pipe(res);
  });
  upstream.on("error", (error) => {
    if (res.headersSent) return res.destroy();
    res.writeHead(502, { "content-type": "text/plain; charset=utf-8" }).end(`The app could not reach GitHub's git server for the push: ${error.message}\n`);
  });
  res.on("close", () => upstream.destroy());
  if (!body) return void upstream.end();
  upstream.write(body.head);
  body.rest.pipe(upstream);
}
