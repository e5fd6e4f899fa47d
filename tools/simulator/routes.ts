import { createHash } from "node:crypto";
import { legacyPermission, requireIssuesAccess, requireVisible, roleOf } from "./access.js";
import type { Authenticator } from "./auth.js";
import { ApiError, notFound, validationFailed } from "./errors.js";
import type { Operations } from "./operations.js";
import { paginate } from "./pagination.js";
import type { Payloads } from "./payloads.js";
import type { Route, RouteRequest, RouteResponse } from "./router.js";
import type { Issue, Repo, SimState } from "./state.js";

/** The REST endpoints the app uses, with GitHub's paths, status codes and response shapes. */

export interface RouteDeps {
  state: SimState;
  ops: Operations;
  payloads: Payloads;
  auth: Authenticator;
}

export function createRoutes({ state, ops, payloads, auth }: RouteDeps): Route[] {
  const repoOf = (req: RouteRequest): Repo => {
    const repo = state.findRepo(req.params.owner ?? "", req.params.repo ?? "");
    if (!repo) throw notFound();
    return repo;
  };
  const visibleRepo = (req: RouteRequest): Repo => {
    const repo = repoOf(req);
    requireVisible(req.actor, repo);
    return repo;
  };
  const installationOf = (id: number) => {
    const installation = state.findInstallation(id);
    if (!installation) throw notFound();
    return installation;
  };

  return [
    {
      method: "GET",
      template: "/app",
      auth: "jwt",
      handle: () => json(payloads.app()),
    },
    {
      method: "GET",
      template: "/app/installations",
      auth: "jwt",
      handle: (req) =>
        list(
          state.allInstallations().map((i) => payloads.installation(i)),
          req.url,
        ),
    },
    {
      method: "GET",
      template: "/app/installations/{installation_id}",
      auth: "jwt",
      handle: (req) => json(payloads.installation(installationOf(num(req, "installation_id")))),
    },
    {
      method: "POST",
      template: "/app/installations/{installation_id}/access_tokens",
      auth: "jwt",
      handle: (req) => {
        const issued = auth.issueToken(num(req, "installation_id"), req.body);
        return json(
          {
            token: issued.token,
            expires_at: issued.expiresAt.toISOString().replace(/\.\d{3}Z$/, "Z"),
            permissions: issued.grant.permissions,
            repository_selection: issued.repositories ? "selected" : "all",
            ...(issued.repositories ? { repositories: issued.repositories.map((r) => payloads.repository(r)) } : {}),
          },
          201,
        );
      },
    },
    {
      method: "DELETE",
      template: "/installation/token",
      auth: "token",
      handle: (req) => {
        if (req.actor.kind !== "installation") throw new ApiError(401, "Bad credentials");
        auth.revoke(req.actor.grant);
        return { status: 204 };
      },
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/installation",
      auth: "jwt",
      handle: (req) => json(payloads.installation(installationOf(repoOf(req).installationId))),
    },
    {
      method: "GET",
      template: "/installation/repositories",
      auth: "token",
      handle: (req) => {
        if (req.actor.kind !== "installation") {
          throw new ApiError(403, "You must authenticate with an installation access token in order to list repositories for an installation.");
        }
        const { grant } = req.actor;
        const repos = state.reposOfInstallation(grant.installationId).filter((r) => grant.repositoryIds?.has(r.id) ?? true);
        const page = paginate(repos, req.url);
        return {
          status: 200,
          json: {
            total_count: repos.length,
            repository_selection: grant.repositoryIds ? "selected" : "all",
            repositories: page.items.map((r) => payloads.repository(r)),
          },
          ...linkHeader(page.link),
        };
      },
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}",
      auth: "token",
      handle: (req) => json(payloads.repository(visibleRepo(req))),
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/issues",
      auth: "token",
      handle: (req) => {
        const repo = visibleRepo(req);
        requireIssuesAccess(req.actor, "read");
        return list(
          listIssues(repo, req.url.searchParams).map((i) => payloads.issue(i)),
          req.url,
        );
      },
    },
    {
      method: "POST",
      template: "/repos/{owner}/{repo}/issues",
      auth: "token",
      handle: (req) => json(payloads.issue(ops.createIssue(req.ctx, repoOf(req), objectBody(req.body))), 201),
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/issues/{issue_number}",
      auth: "token",
      handle: (req) => json(payloads.issue(ops.getIssue(req.actor, repoOf(req), num(req, "issue_number")))),
    },
    {
      method: "PATCH",
      template: "/repos/{owner}/{repo}/issues/{issue_number}",
      auth: "token",
      handle: (req) => json(payloads.issue(ops.updateIssue(req.ctx, repoOf(req), num(req, "issue_number"), objectBody(req.body)))),
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
      auth: "token",
      handle: (req) => {
        const issue = ops.getIssue(req.actor, repoOf(req), num(req, "issue_number"));
        const since = sinceParam(req.url.searchParams);
        const comments = issue.comments.filter((c) => since === undefined || Date.parse(c.updatedAt) >= since);
        return list(
          comments.map((c) => payloads.comment(c)),
          req.url,
        );
      },
    },
    {
      method: "POST",
      template: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
      auth: "token",
      handle: (req) => json(payloads.comment(ops.createComment(req.ctx, repoOf(req), num(req, "issue_number"), objectBody(req.body).body)), 201),
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/issues/comments/{comment_id}",
      auth: "token",
      handle: (req) => json(payloads.comment(ops.getComment(req.actor, repoOf(req), num(req, "comment_id")))),
    },
    {
      method: "PATCH",
      template: "/repos/{owner}/{repo}/issues/comments/{comment_id}",
      auth: "token",
      handle: (req) => json(payloads.comment(ops.updateComment(req.ctx, repoOf(req), num(req, "comment_id"), objectBody(req.body).body))),
    },
    {
      method: "DELETE",
      template: "/repos/{owner}/{repo}/issues/comments/{comment_id}",
      auth: "token",
      handle: (req) => {
        ops.deleteComment(req.ctx, repoOf(req), num(req, "comment_id"));
        return { status: 204 };
      },
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
      auth: "token",
      handle: (req) => {
        const comment = ops.getComment(req.actor, repoOf(req), num(req, "comment_id"));
        const content = req.url.searchParams.get("content");
        const reactions = comment.reactions.filter((r) => content === null || r.content === content);
        return list(
          reactions.map((r) => payloads.reaction(r)),
          req.url,
        );
      },
    },
    {
      method: "POST",
      template: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
      auth: "token",
      handle: (req) => {
        const { reaction, created } = ops.react(req.actor, repoOf(req), num(req, "comment_id"), objectBody(req.body).content);
        return json(payloads.reaction(reaction), created ? 201 : 200);
      },
    },
    {
      method: "DELETE",
      template: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions/{reaction_id}",
      auth: "token",
      handle: (req) => {
        ops.deleteReaction(req.actor, repoOf(req), num(req, "comment_id"), num(req, "reaction_id"));
        return { status: 204 };
      },
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/issues/{issue_number}/events",
      auth: "token",
      handle: (req) => {
        const issue = ops.getIssue(req.actor, repoOf(req), num(req, "issue_number"));
        return list(
          issue.events.map((e) => payloads.issueEvent(issue, e)),
          req.url,
        );
      },
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/issues/{issue_number}/labels",
      auth: "token",
      handle: (req) => {
        const issue = ops.getIssue(req.actor, repoOf(req), num(req, "issue_number"));
        return list(labelsOf(payloads, issue), req.url);
      },
    },
    {
      method: "POST",
      template: "/repos/{owner}/{repo}/issues/{issue_number}/labels",
      auth: "token",
      handle: (req) => json(labelsOf(payloads, ops.addLabels(req.ctx, repoOf(req), num(req, "issue_number"), req.body))),
    },
    {
      method: "PUT",
      template: "/repos/{owner}/{repo}/issues/{issue_number}/labels",
      auth: "token",
      handle: (req) => json(labelsOf(payloads, ops.setLabels(req.ctx, repoOf(req), num(req, "issue_number"), req.body))),
    },
    {
      method: "DELETE",
      template: "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
      auth: "token",
      handle: (req) => json(labelsOf(payloads, ops.removeLabel(req.ctx, repoOf(req), num(req, "issue_number"), req.params.name ?? ""))),
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/collaborators/{username}/permission",
      auth: "token",
      handle: (req) => {
        const repo = visibleRepo(req);
        const user = state.findAccount(req.params.username ?? "");
        if (!user || user.type === "Organization") throw notFound();
        const role = roleOf(repo, user);
        const permission = legacyPermission(role);
        return json({
          permission,
          role_name: role,
          user: {
            ...payloads.user(user),
            permissions: {
              admin: role === "admin",
              maintain: role === "admin" || role === "maintain",
              push: permission === "admin" || permission === "write",
              triage: role !== "read" && role !== "none",
              pull: role !== "none",
            },
            role_name: role,
          },
        });
      },
    },
    {
      method: "GET",
      template: "/orgs/{org}/teams/{team_slug}/memberships/{username}",
      auth: "token",
      handle: (req) => {
        const { org = "", team_slug: team = "", username = "" } = req.params;
        if (!state.isTeamMember(org, team, username)) throw notFound();
        return json({ url: `${req.url.origin}${req.url.pathname}`, role: "member", state: "active" });
      },
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/contents/{path}",
      auth: "token",
      handle: (req) => fileContents(visibleRepo(req), req, payloads),
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
      auth: "token",
      handle: (req) => {
        const repo = repoOf(req);
        const number = num(req, "pull_number");
        const issue = repo.issues.get(number)!;
        return list(
          ops.pullRequestParts(req.actor, repo, number).reviews.map((r) => payloads.review(issue, r, "rest")),
          req.url,
        );
      },
    },
    {
      method: "GET",
      template: "/repos/{owner}/{repo}/pulls/{pull_number}/comments",
      auth: "token",
      handle: (req) => {
        const repo = repoOf(req);
        const number = num(req, "pull_number");
        const issue = repo.issues.get(number)!;
        return list(
          ops.pullRequestParts(req.actor, repo, number).reviewComments.map((c) => payloads.reviewComment(issue, c)),
          req.url,
        );
      },
    },
  ];
}

function json(body: unknown, status = 200): RouteResponse {
  return { status, json: body };
}

function linkHeader(link: string | undefined): Pick<RouteResponse, "headers"> {
  return link === undefined ? {} : { headers: { link } };
}

function list(items: readonly unknown[], url: URL): RouteResponse {
  const page = paginate(items, url);
  return { status: 200, json: page.items, ...linkHeader(page.link) };
}

function num(req: RouteRequest, name: string): number {
  return Number(req.params[name]);
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError(400, "Problems parsing JSON");
  }
  return body as Record<string, unknown>;
}

function sinceParam(query: URLSearchParams): number | undefined {
  const since = query.get("since");
  if (since === null) return undefined;
  const ms = Date.parse(since);
  if (Number.isNaN(ms)) throw validationFailed("Issue", "invalid", "since");
  return ms;
}

function pick<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const value = query.get(name) ?? fallback;
  if (!allowed.includes(value as T)) throw validationFailed("Issue", "invalid", name);
  return value as T;
}

/** GitHub's filters: state (default open), labels (all must be present), since (updated at or after); newest first by default. */
function listIssues(repo: Repo, query: URLSearchParams): Issue[] {
  const state = pick(query, "state", ["open", "closed", "all"] as const, "open");
  const sort = pick(query, "sort", ["created", "updated", "comments"] as const, "created");
  const direction = pick(query, "direction", ["asc", "desc"] as const, "desc");
  const since = sinceParam(query);
  const labels = (query.get("labels") ?? "")
    .split(",")
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l !== "");
  const sortKey = (issue: Issue): number => (sort === "created" ? issue.id : sort === "updated" ? Date.parse(issue.updatedAt) : issue.comments.length);
  return [...repo.issues.values()]
    .filter((i) => state === "all" || i.state === state)
    .filter((i) => labels.every((name) => i.labels.some((l) => l.name.toLowerCase() === name)))
    .filter((i) => since === undefined || Date.parse(i.updatedAt) >= since)
    .sort((a, b) => (sortKey(a) - sortKey(b) || a.id - b.id) * (direction === "asc" ? 1 : -1));
}

function labelsOf(payloads: Payloads, issue: Issue): unknown[] {
  return issue.labels.map((l) => payloads.label(issue.repo, l));
}

/** JSON with base64 content by default; the raw text when asked for `application/vnd.github.raw`, as the config loader does. */
function fileContents(repo: Repo, req: RouteRequest, payloads: Payloads): RouteResponse {
  const path = (req.params.path ?? "").replace(/^\/+|\/+$/g, "");
  const content = repo.files.get(path);
  if (content === undefined) throw notFound();
  if (/\braw\b/.test(req.accept)) {
    return { status: 200, text: { body: content, contentType: "application/vnd.github.raw; charset=utf-8" } };
  }
  const bytes = Buffer.from(content, "utf8");
  const sha = createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
  const links = payloads.repoLinks(repo);
  const url = `${links.api}/contents/${path}`;
  const htmlUrl = `${links.html}/blob/main/${path}`;
  const gitUrl = `${links.api}/git/blobs/${sha}`;
  return json({
    type: "file",
    encoding: "base64",
    size: bytes.length,
    name: path.split("/").pop(),
    path,
    // GitHub wraps base64 content at 60 characters.
    content: (bytes.toString("base64").match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join(""),
    sha,
    url,
    git_url: gitUrl,
    html_url: htmlUrl,
    download_url: `${links.html}/raw/main/${path}`,
    _links: { self: url, git: gitUrl, html: htmlUrl },
  });
}
