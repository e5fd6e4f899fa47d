import type { Actor } from "./access.js";
import type { RouteAuth } from "./auth.js";
import type { OpContext } from "./operations.js";

export interface RouteRequest {
  params: Record<string, string>;
  /** The full request URL, used for query parameters and Link headers. */
  url: URL;
  body: unknown;
  actor: Actor;
  accept: string;
  ctx: OpContext;
}

export interface RouteResponse {
  status: number;
  json?: unknown;
  /** A non-JSON body, e.g. raw file contents. */
  text?: { body: string; contentType: string };
  headers?: Record<string, string>;
}

export interface Route {
  method: string;
  /** GitHub's path template, e.g. "/repos/{owner}/{repo}/issues/{issue_number}". */
  template: string;
  auth: RouteAuth;
  handle: (request: RouteRequest) => RouteResponse;
}

/** Numeric placeholders only match digits, so ".../issues/comments/5" cannot be read as issue "comments". */
const NUMERIC_PARAMS = new Set(["issue_number", "comment_id", "installation_id", "reaction_id"]);

export class Router {
  private readonly compiled: Array<{ route: Route; pattern: RegExp; names: string[] }>;

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.template.replace(/\{(\w+)\}|[^{]+/g, (part, name: string | undefined) => {
        if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
        names.push(name);
        if (NUMERIC_PARAMS.has(name)) return "(\\d+)";
        // A file path spans several segments.
        return name === "path" ? "(.+)" : "([^/]+)";
      });
      return { route, pattern: new RegExp(`^${source}/?$`), names };
    });
  }

  match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    for (const { route, pattern, names } of this.compiled) {
      if (route.method !== method) continue;
      const found = pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      try {
        names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1] ?? "")));
      } catch {
        return undefined;
      }
      return { route, params };
    }
    return undefined;
  }
}
