import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { accessRank, roleOf, type Actor } from "./access.js";
import type { Authenticator } from "./auth.js";
import { ApiError } from "./errors.js";
import type { GitRepos } from "./gitRepos.js";
import type { Repo, SimState } from "./state.js";

/** `/{owner}/{repo}.git/<smart HTTP path>`, as on github.com. */
const GIT_PATH = /^\/([^/]+)\/([^/]+?)\.git(\/.*)$/;

export interface GitHttpOptions {
  state: SimState;
  auth: Authenticator;
  repos: GitRepos;
  log: (line: string) => void;
}

/**
 * Clone, fetch and push over smart HTTP, served by git's own `git http-backend` (CGI) from the
 * simulator's bare repositories, with GitHub's answers to credentials: HTTP Basic with a token as
 * the password (`x-access-token:<installation token>`, or a user's token); none or a bad one gets
 * 401 and `WWW-Authenticate: Basic realm="GitHub"`, except an anonymous fetch of a public repository.
 */
export class GitHttp {
  constructor(private readonly options: GitHttpOptions) {}

  /** Whether the request is for a repository's git endpoint rather than the REST API. */
  static matches(url: string | undefined): boolean {
    return GIT_PATH.test(new URL(url ?? "/", "http://x").pathname);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const [, owner = "", name = "", rest = ""] = GIT_PATH.exec(url.pathname) ?? [];
    const push = url.searchParams.get("service") === "git-receive-pack" || rest === "/git-receive-pack";
    try {
      const repo = this.options.state.findRepo(owner, name);
      if (!repo) throw new ApiError(404, "Repository not found.");
      const user = this.authorize(req.headers.authorization, repo, push);
      await this.options.repos.ensure(repo);
      this.options.log(`git ${req.method} ${url.pathname}${url.search} (${user})`);
      await this.backend(req, res, `/${this.options.repos.relativePath(repo)}${rest}`, url.search.slice(1), user);
    } catch (error) {
      const refusal = error instanceof ApiError ? error : new ApiError(500, "Internal error");
      if (!(error instanceof ApiError)) this.options.log(`git error: ${(error as Error).stack ?? String(error)}`);
      this.options.log(`git ${req.method} ${url.pathname} -> ${refusal.status}`);
      if (res.headersSent) return void res.destroy();
      res.writeHead(refusal.status, {
        "content-type": "text/plain; charset=utf-8",
        ...(refusal.status === 401 ? { "www-authenticate": 'Basic realm="GitHub"' } : {}),
      });
      res.end(`${refusal.message}\n`);
    }
  }

  /** The login acting, or a refusal as GitHub words it. */
  private authorize(header: string | undefined, repo: Repo, push: boolean): string {
    const password = basicPassword(header);
    if (password === undefined) {
      if (!push && !repo.private) return "anonymous";
      throw new ApiError(401, "Authentication required.");
    }
    let actor: Actor;
    try {
      actor = this.options.auth.authenticate(`token ${password}`, "token");
    } catch {
      throw new ApiError(401, "Invalid username or token. Password authentication is not supported for Git operations.");
    }
    const need = push ? "write" : "read";
    if (actor.kind === "installation") {
      const { grant } = actor;
      if (repo.installationId !== grant.installationId || !(grant.repositoryIds?.has(repo.id) ?? true)) throw new ApiError(404, "Repository not found.");
      const readsPublic = !push && !repo.private;
      if (!readsPublic && accessRank(grant.permissions.contents) < accessRank(need))
        throw new ApiError(403, `Permission to ${repo.fullName}.git denied to ${actor.account.login}.`);
      return actor.account.login;
    }
    if (actor.kind !== "user") throw new ApiError(401, "Authentication required.");
    const role = roleOf(repo, actor.account);
    if (role === "none") throw new ApiError(404, "Repository not found.");
    if (push && !["write", "maintain", "admin"].includes(role)) throw new ApiError(403, `Permission to ${repo.fullName}.git denied to ${actor.account.login}.`);
    return actor.account.login;
  }

  /** Runs `git http-backend` for one request: the CGI environment in, its headers and body out. */
  private backend(req: IncomingMessage, res: ServerResponse, pathInfo: string, query: string, user: string): Promise<void> {
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === "string" ? value : undefined;
    };
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_PROJECT_ROOT: this.options.repos.root,
      GIT_HTTP_EXPORT_ALL: "1",
      REQUEST_METHOD: req.method ?? "GET",
      PATH_INFO: pathInfo,
      QUERY_STRING: query,
      REMOTE_USER: user,
      REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
      ...optional("CONTENT_TYPE", header("content-type")),
      ...optional("CONTENT_LENGTH", header("content-length")),
      ...optional("HTTP_CONTENT_ENCODING", header("content-encoding")),
      ...optional("GIT_PROTOCOL", header("git-protocol")),
    };
    return new Promise((resolve, reject) => {
      const child = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "pipe"] });
      let head = Buffer.alloc(0);
      let started = false;
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.stdout.on("data", (chunk: Buffer) => {
        if (started) return void res.write(chunk);
        head = Buffer.concat([head, chunk]);
        const end = headerEnd(head);
        if (end === undefined) return;
        started = true;
        const { status, headers } = parseCgiHeaders(head.subarray(0, end.at).toString("latin1"));
        res.writeHead(status, headers);
        res.write(head.subarray(end.at + end.length));
      });
      child.on("error", reject);
      child.on("close", (code) => {
        if (!started) {
          if (stderr) this.options.log(`git http-backend: ${stderr.trim()}`);
          return reject(new Error(`git http-backend exited with ${code} before answering`));
        }
        res.end();
        resolve();
      });
      req.pipe(child.stdin);
      child.stdin.on("error", () => undefined); // the backend may answer before reading the whole body
    });
  }
}

function optional(name: string, value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { [name]: value };
}

/** The password of an HTTP Basic header: where git puts the token. */
function basicPassword(header: string | undefined): string | undefined {
  const encoded = /^basic\s+(\S+)$/i.exec(header?.trim() ?? "")?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

function headerEnd(buffer: Buffer): { at: number; length: number } | undefined {
  const crlf = buffer.indexOf("\r\n\r\n");
  const lf = buffer.indexOf("\n\n");
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) return { at: crlf, length: 4 };
  return lf >= 0 ? { at: lf, length: 2 } : undefined;
}

function parseCgiHeaders(text: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 200;
    else headers[name] = value;
  }
  return { status, headers };
}
