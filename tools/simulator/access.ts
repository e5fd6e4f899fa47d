import { ApiError, notFound } from "./errors.js";
import type { Account, Repo, SimState } from "./state.js";
import type { Permission } from "./types.js";

/** What an installation access token may do: its installation, permissions and (when narrowed) repositories. */
export interface Grant {
  installationId: number;
  permissions: Record<string, string>;
  repositoryIds?: ReadonlySet<number>;
}

/** Who a request (or an "as a person" call) acts as. */
export type Actor = { kind: "app" } | { kind: "installation"; account: Account; grant: Grant } | { kind: "user"; account: Account };

const ROLE_RANK: Record<Permission, number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };
const ACCESS_RANK: Record<string, number> = { read: 1, write: 2, admin: 3 };

export function accessRank(level: string | undefined): number {
  return level === undefined ? 0 : (ACCESS_RANK[level] ?? 0);
}

export function actorName(actor: Actor, appSlug: string): string {
  return actor.kind === "app" ? `app:${appSlug}` : actor.account.login;
}

/** Nobody can be denied read access to a public repository, so an explicit "none" only matters when it is private. */
export function roleOf(repo: Repo, account: Account): Permission {
  const explicit = repo.collaborators.get(account.login.toLowerCase());
  if (explicit && explicit !== "none") return explicit;
  if (repo.owner === account) return "admin";
  return repo.private ? "none" : "read";
}

/** GitHub's legacy `permission` field knows four levels: maintain reads as write, triage as read. */
export function legacyPermission(role: Permission): "admin" | "write" | "read" | "none" {
  switch (role) {
    case "admin":
      return "admin";
    case "maintain":
    case "write":
      return "write";
    case "triage":
    case "read":
      return "read";
    case "none":
      return "none";
  }
}

export function authorAssociation(state: SimState, repo: Repo, account: Account): string {
  if (account === repo.owner) return "OWNER";
  if (repo.owner.type === "Organization" && state.isOrgMember(repo.owner, account.login)) return "MEMBER";
  if (repo.collaborators.has(account.login.toLowerCase())) return "COLLABORATOR";
  return "NONE";
}

/** GitHub answers 404, not 403, for a repository the caller may not see, so its existence does not leak. */
export function requireVisible(actor: Actor, repo: Repo): void {
  const visible =
    actor.kind === "installation"
      ? repo.installationId === actor.grant.installationId && (actor.grant.repositoryIds?.has(repo.id) ?? true)
      : actor.kind === "user" && ROLE_RANK[roleOf(repo, actor.account)] >= ROLE_RANK.read;
  if (!visible) throw notFound();
}

/** Issues and their comments, labels and reactions all sit under the app's `issues` permission. */
export function requireIssuesAccess(actor: Actor, level: "read" | "write"): void {
  if (actor.kind === "installation" && accessRank(actor.grant.permissions.issues) < accessRank(level)) {
    throw new ApiError(403, "Resource not accessible by integration");
  }
}

/** Reviews and their line comments sit under the app's `pull_requests` permission. */
export function requirePullRequestsAccess(actor: Actor, level: "read" | "write"): void {
  if (actor.kind === "installation" && accessRank(actor.grant.permissions.pull_requests) < accessRank(level)) {
    throw new ApiError(403, "Resource not accessible by integration");
  }
}

/** True when the actor may do what needs `min` on the repository; an installation needs `issues: write`. */
export function hasRole(actor: Actor, repo: Repo, min: Permission): boolean {
  switch (actor.kind) {
    case "installation":
      return accessRank(actor.grant.permissions.issues) >= accessRank("write");
    case "user":
      return ROLE_RANK[roleOf(repo, actor.account)] >= ROLE_RANK[min];
    case "app":
      return false;
  }
}

export function requireRole(actor: Actor, repo: Repo, min: Permission): void {
  if (hasRole(actor, repo, min)) return;
  if (actor.kind === "installation") throw new ApiError(403, "Resource not accessible by integration");
  throw new ApiError(403, `Must have ${min} access to repository.`);
}
