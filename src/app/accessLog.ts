import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";

/**
 * Probot's Server logs every request through pino-http at info with all its headers (about 1.5 KB
 * of JSON per webhook delivery, ~4.5 % of the app's CPU in a burst) and ignores its
 * `loggingOptions`. The logger handed to the Server gives pino-http (its `http` child) this access
 * log instead: one line per request with method, path, status, time, delivery id and event — at
 * debug, or at warn when the request failed (5xx). Everything else logs through `log` unchanged.
 */
export function withQuietAccessLog(log: Logger): Logger {
  const serverLog = Object.create(log) as Logger;
  serverLog.child = ((bindings: { name?: string }, options?: object) =>
    bindings?.name === "http" ? new AccessLog(log.child(bindings)) : log.child(bindings, options)) as Logger["child"];
  return serverLog;
}

interface Finished {
  res?: ServerResponse;
  err?: unknown;
  responseTime?: number;
}

/** What pino-http uses of a logger: `levels`, `child` (once per request, with the request) and the level methods. */
class AccessLog {
  readonly #log: Logger;
  readonly #req: IncomingMessage | undefined;

  constructor(log: Logger, req?: IncomingMessage) {
    this.#log = log;
    this.#req = req;
  }

  get levels(): Logger["levels"] {
    return this.#log.levels;
  }

  child(bindings: { req?: IncomingMessage }): AccessLog {
    return new AccessLog(this.#log, bindings.req ?? this.#req);
  }

  trace = (entry: Finished, message: string) => this.#write(entry, message);
  debug = (entry: Finished, message: string) => this.#write(entry, message);
  info = (entry: Finished, message: string) => this.#write(entry, message);
  warn = (entry: Finished, message: string) => this.#write(entry, message);
  error = (entry: Finished, message: string) => this.#write(entry, message);
  fatal = (entry: Finished, message: string) => this.#write(entry, message);

  #write(entry: Finished, message: string): void {
    const status = entry.res?.statusCode;
    const failed = entry.err !== undefined || (status ?? 0) >= 500;
    if (!failed && !this.#log.isLevelEnabled("debug")) return;
    const headers = this.#req?.headers ?? {};
    const line = {
      method: this.#req?.method,
      path: this.#req?.url,
      status,
      ms: entry.responseTime,
      delivery: headers["x-github-delivery"],
      event: headers["x-github-event"],
    };
    if (failed) this.#log.warn({ ...line, err: entry.err }, message);
    else this.#log.debug(line, message);
  }
}
