import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { hasRole, requireVisible, accessRank, type Actor } from "./access.js";
import { ApiError, notFound, validationFailed } from "./errors.js";
import type { GitRepos } from "./gitRepos.js";
import type { Operations } from "./operations.js";
import { paginate } from "./pagination.js";
import type { Payloads } from "./payloads.js";
import type { Route, RouteRequest } from "./router.js";
import type { Issue, Repo, SimState } from "./state.js";

export interface PullRouteDeps {
  state: SimState;
  ops: Operations;
  payloads: Payloads;
  git: GitRepos;
}

/**
 * `POST` and `GET /repos/{owner}/{repo}/pulls`, `GET …/pulls/{pull_number}`: pull requests between two branches of the
 * repository's git history, numbered with the issues; one open pull request per head and base, as
 * GitHub refuses a second (422 "A pull request already exists for owner:branch.").
 */
export function pullRoutes({ state, ops, payloads, git }: PullRouteDeps): Route[] {
  const branches = new WeakMap<Issue, { head: string; base: string }>();
  const repoOf = (req: RouteRequest): Repo => {
    const repo = state.findRepo(req.params.owner ?? "", req.params.repo ?? "");
    if (!repo) throw notFound();
    requireVisible(req.actor, repo);
    return repo;
  };
  const view = (issue: Issue) => {
    const refs = branches.get(issue)!;
    const pull = payloads.pullRequest(issue) as Record<string, unknown>;
    const owner = issue.repo.owner.login;
    const repo = { full_name: issue.repo.fullName };
    return {
      ...pull,
      head: { ref: refs.head, label: `${owner}:${refs.head}`, sha: issue.pullRequest?.headSha ?? "", repo },
      base: { ref: refs.base, label: `${owner}:${refs.base}`, repo },
    };
  };
  const pullsOf = (repo: Repo) => [...repo.issues.values()].filter((i) => branches.has(i));

  return [
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/pulls",
      auth: "token",
      handle: (req) => {
        const repo = repoOf(req);
        const wanted = req.url.searchParams.get("state") ?? "open";
        const head = req.url.searchParams.get("head");
        const base = req.url.searchParams.get("base");
        const found = pullsOf(repo).filter((issue) => {
          const refs = branches.get(issue)!;
          return (
            (wanted === "all" || issue.state === wanted) &&
            (head === null || `${repo.owner.login}:${refs.head}`.toLowerCase() === head.toLowerCase()) &&
            (base === null || refs.base === base)
          );
        });
        const page = paginate(found.map(view), req.url);
        return { status: 200, json: page.items, ...(page.link ? { headers: { link: page.link } } : {}) };
      },
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/pulls/{pull_number}",
      auth: "token",
      handle: (req) => {
        const issue = repoOf(req).issues.get(Number(req.params.pull_number));
        if (!issue || !branches.has(issue)) throw notFound();
        return { status: 200, json: view(issue) };
      },
    },
    {
      method: "POST",
      template: "/repos/{owner}/{repo}/pulls",
      auth: "token",
      handle: (req) => {
        const repo = repoOf(req);
        requirePullWrite(req.actor, repo);
        const body = (req.body ?? {}) as { title?: unknown; head?: unknown; base?: unknown; body?: unknown };
        if (typeof body.head !== "string" || typeof body.base !== "string")
          throw validationFailed("PullRequest", "missing_field", typeof body.head !== "string" ? "head" : "base");
        const head = body.head.replace(/^[^:]+:/, "");
        const base = body.base;
        const headSha = branchHead(git, repo, head);
        if (!headSha) throw validationFailed("PullRequest", "invalid", "head");
        if (!branchHead(git, repo, base)) throw validationFailed("PullRequest", "invalid", "base");
        const open = pullsOf(repo).find((i) => i.state === "open" && branches.get(i)!.head === head && branches.get(i)!.base === base);
        if (open)
          throw new ApiError(422, "Validation Failed", {
            errors: [{ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${repo.owner.login}:${head}.` }],
          });
        const issue = ops.createIssue(req.ctx, repo, { title: body.title, body: body.body }, { headSha, reviews: [], reviewComments: [] });
        branches.set(issue, { head, base });
        return { status: 201, json: view(issue) };
      },
    },
  ];
}

/** Opening a pull request takes `pull_requests: write` (an installation) or push access (a person). */
function requirePullWrite(actor: Actor, repo: Repo): void {
  if (actor.kind === "installation" && accessRank(actor.grant.permissions.pull_requests) >= accessRank("write")) return;
  if (actor.kind === "user" && hasRole(actor, repo, "write")) return;
  throw new ApiError(403, "Resource not accessible by integration");
}

/** The branch's commit in the repository's git history, read synchronously like the rest of a route. */
function branchHead(git: GitRepos, repo: Repo, branch: string): string | undefined {
  try {
    return execFileSync("git", ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], {
      cwd: join(git.root, git.relativePath(repo)),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined;
  }
}
