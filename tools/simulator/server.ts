import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { actorName } from "./access.js";
import type { Authenticator } from "./auth.js";
import { ApiError, notFound } from "./errors.js";
import type { WebhookEvent } from "./operations.js";
import { ContentLimiter, isContentCreating, RateMeter, SECONDARY_LIMIT_DOCS, type RateBudget, type RateResource } from "./ratelimit.js";
import type { Actor } from "./access.js";
import type { Route, Router, RouteResponse } from "./router.js";
import type { ApiCall, ReceivedRequest } from "./types.js";

/** HTTP plumbing: body parsing, authentication, GitHub's headers and error shape, call recording. */

export const API_PREFIX = "/api/v3";
/** Where GitHub Enterprise serves GraphQL (Octokit derives it from a base URL ending in /api/v3). */
export const GRAPHQL_PATH = "/api/graphql";

export interface ApiServerOptions {
  /** http://127.0.0.1:PORT, to rebuild absolute URLs for Link headers. */
  baseUrl: string;
  router: Router;
  /** POST GRAPHQL_PATH, for a token's holder. */
  graphql: Route;
  auth: Authenticator;
  appSlug: string;
  /** Webhooks raised by a request are handed over only once its response has been sent, as on GitHub. */
  deliver: (event: WebhookEvent) => void;
  record: (call: ApiCall) => void;
  inspect?: (request: ReceivedRequest) => void;
  log: (line: string) => void;
}

export class ApiServer {
  private readonly rate = new RateMeter();

  /** What is left of a caller's primary budget ("installation:ID", "user:LOGIN", "app"). */
  rateBudget(caller: string, resource: RateResource): RateBudget {
    return this.rate.budget(caller, resource);
  }
  /** GitHub's secondary limit on content creation; enforced only when a test sets limits or trips it. */
  readonly content = new ContentLimiter();
  /** The API requests still to be answered with a server error (a burst of 5xx), and its status. */
  #failing = { count: 0, status: 502 };

  /** The next `count` API requests (REST or GraphQL, anyone's) are answered `status`, as in a GitHub incident. */
  failNext(count: number, status: 500 | 502 | 503): void {
    this.#failing = { count, status };
  }

  constructor(private readonly options: ApiServerOptions) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", this.options.baseUrl);
    const apiPath = url.pathname.startsWith(`${API_PREFIX}/`) ? url.pathname.slice(API_PREFIX.length) : undefined;
    const events: WebhookEvent[] = [];
    let route = `${method} (unmatched)`;
    let actor = "anonymous";
    let caller: string | undefined;
    let response: RouteResponse;
    const requestIdValue = requestId();
    try {
      const raw = await readBody(req);
      this.options.inspect?.({ method, url, body: inspectedBody(raw) });
      const match =
        url.pathname === GRAPHQL_PATH && method === "POST"
          ? { route: this.options.graphql, params: {} }
          : apiPath === undefined
            ? undefined
            : this.options.router.match(method, apiPath);
      if (!match) throw notFound();
      route = `${method} ${match.route.template}`;
      if (this.#failing.count > 0) {
        this.#failing.count--;
        throw new ApiError(this.#failing.status, this.#failing.status === 503 ? "Service Unavailable" : "Server Error");
      }
      const who = this.options.auth.authenticate(req.headers.authorization, match.route.auth);
      actor = actorName(who, this.options.appSlug);
      caller = callerOf(who);
      if (isContentCreating(method, match.route.template)) {
        const refusal = this.content.admit(callerOf(who), route, requestIdValue);
        if (refusal) throw new ApiError(refusal.status, refusal.message, { documentation_url: SECONDARY_LIMIT_DOCS }, refusal.headers);
      }
      response = match.route.handle({
        params: match.params,
        url,
        body: parseJson(raw),
        actor: who,
        accept: req.headers.accept ?? "",
        ctx: { actor: who, emit: (event) => events.push(event) },
      });
    } catch (error) {
      response = this.errorResponse(error);
    }

    const body = response.text?.body ?? (response.json === undefined ? "" : JSON.stringify(response.json));
    res.writeHead(response.status, {
      ...(response.status === 204 ? {} : { "content-type": response.text?.contentType ?? "application/json; charset=utf-8" }),
      "x-github-media-type": "github.v3; format=json",
      "x-github-request-id": requestIdValue,
      ...this.rate.consume(caller, url.pathname === GRAPHQL_PATH ? "graphql" : apiPath?.startsWith("/search/") ? "search" : "core"),
      ...response.headers,
    });
    // "close" fires even when the client hangs up early; GitHub delivers the webhooks of a completed change regardless.
    res.once("close", () => {
      for (const event of events) this.options.deliver(event);
    });
    res.end(body);
    const path = (apiPath ?? url.pathname) + url.search;
    this.options.record({ method, route, path, status: response.status, actor, at });
    this.options.log(`${method} ${path} -> ${response.status} (${actor})`);
  }

  private errorResponse(error: unknown): RouteResponse {
    if (error instanceof ApiError) {
      return {
        status: error.status,
        json: { message: error.message, documentation_url: "https://docs.github.com/rest", ...error.extra, status: String(error.status) },
        ...(Object.keys(error.headers).length > 0 ? { headers: error.headers } : {}),
      };
    }
    this.options.log(`internal error: ${(error as Error).stack ?? String(error)}`);
    return { status: 500, json: { message: "Server Error", documentation_url: "https://docs.github.com/rest", status: "500" } };
  }
}

/** Whose budgets a request spends: the installation's, the user's, or the app's. */
function callerOf(actor: Actor): string {
  if (actor.kind === "installation") return `installation:${actor.grant.installationId}`;
  if (actor.kind === "user") return `user:${actor.account.login.toLowerCase()}`;
  return "app";
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(raw: string): unknown {
  if (raw.trim() === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    throw new ApiError(400, "Problems parsing JSON");
  }
}

/** What an inspector sees: undefined for no body, the JSON, or the text of a body that is not JSON. */
function inspectedBody(raw: string): unknown {
  if (raw.trim() === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Same shape as GitHub's, e.g. "C0DE:1A2B:3C4D5E:6F7A8B:66A1B2C3". */
function requestId(): string {
  const hex = (bytes: number) => randomBytes(bytes).toString("hex").toUpperCase();
  return `${hex(2)}:${hex(2)}:${hex(3)}:${hex(3)}:${Math.floor(Date.now() / 1000)
    .toString(16)
    .toUpperCase()}`;
}
