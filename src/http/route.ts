import type { IncomingMessage, ServerResponse } from "node:http";

/** A Probot `addHandler` handler: true when it answered the request. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** URLs as they arrived, for requests whose `req.url` had a token redacted (see redactTokens). */
const originalUrls = new WeakMap<IncomingMessage, string>();

/** The request's URL as it arrived, parsed against a dummy origin (only path and query matter here). */
export function requestUrl(req: IncomingMessage): URL {
  return new URL(originalUrls.get(req) ?? req.url ?? "/", "http://localhost");
}

/**
 * Runs first and answers nothing: Probot's request logger prints `req.url` when the response ends,
 * so a `?token=` value is replaced there (on every path, a mistyped one too). The routes refuse a
 * token in the URL; this keeps one someone tried anyway out of the log.
 */
export const redactTokens: HttpHandler = (req) => {
  if (req.url && /[?&]token=/.test(req.url)) {
    originalUrls.set(req, req.url);
    req.url = req.url.replace(/([?&]token=)[^&#]*/g, "$1[redacted]");
  }
  return Promise.resolve(false);
};

/** Answers a GET/HEAD route at one of `paths` (a trailing slash is ignored); other methods get 405. */
export function route(paths: string[], handle: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>): HttpHandler {
  const wanted = new Set(paths.map((p) => p.replace(/\/+$/, "")));
  return async (req, res) => {
    const url = requestUrl(req);
    if (!wanted.has(url.pathname.replace(/\/+$/, ""))) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("405 Method Not Allowed\n");
      return true;
    }
    await handle(req, res, url);
    return true;
  };
}

/** Rejects after `ms`, so a health or metrics probe answers even when Redis hangs. */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
