import { randomBytes } from "node:crypto";
import type { AccountType, Permission, ReactionContent } from "./types.js";

/**
 * The in-memory store. Logins and repository names are looked up case-insensitively, as on GitHub.
 * Records are mutable and shared by reference; everything handed to callers outside the simulator
 * goes through payloads.ts or the simulator's snapshot functions instead.
 */

export interface Account {
  login: string;
  id: number;
  type: AccountType;
  /** Personal access token; organizations and the app's bot have none. */
  token?: string;
}

export interface Label {
  id: number;
  name: string;
  color: string;
  description: string | null;
  default: boolean;
}

export interface Reaction {
  id: number;
  content: ReactionContent;
  user: Account;
  createdAt: string;
}

export interface Comment {
  id: number;
  repo: Repo;
  issueNumber: number;
  body: string;
  author: Account;
  /** Written with an installation token: GitHub then fills `performed_via_github_app`. */
  viaApp: boolean;
  createdAt: string;
  updatedAt: string;
  reactions: Reaction[];
  /** Its edit history as GitHub's GraphQL `userContentEdits` tells it: empty until the first edit, which adds the created text too. */
  edits: ContentEdit[];
}

/** One saved version of a comment or an issue's body: who saved it, when, and its text (GraphQL's `diff`), unless deleted from the history. */
export interface ContentEdit {
  editor: Account;
  editedAt: string;
  body: string;
  deleted?: { by: Account; at: string };
}

/** An entry of the issue's events (GET …/issues/{n}/events): label changes, closing and reopening, title changes. */
export interface IssueEvent {
  id: number;
  event: "labeled" | "unlabeled" | "closed" | "reopened" | "renamed";
  /** A `renamed` event's titles. */
  rename?: { from: string; to: string };
  actor: Account;
  /** Done with an installation token: GitHub then fills `performed_via_github_app`. */
  viaApp: boolean;
  label?: Label;
  createdAt: string;
}

export interface Issue {
  id: number;
  repo: Repo;
  number: number;
  title: string;
  body: string | null;
  author: Account;
  viaApp: boolean;
  state: "open" | "closed";
  stateReason: "completed" | "not_planned" | "reopened" | null;
  labels: Label[];
  assignees: Account[];
  comments: Comment[];
  events: IssueEvent[];
  /** Its body's edit history, as a comment's (`edits`). */
  edits: ContentEdit[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** Set on a pull request (an issue with a branch): its head commit, its reviews and their line comments. */
  pullRequest?: PullRequestParts;
}

export interface PullRequestParts {
  headSha: string;
  reviews: Review[];
  reviewComments: ReviewComment[];
}

/** A submitted review: its body (none for a plain approval) and verdict. */
export interface Review {
  id: number;
  author: Account;
  body: string | null;
  state: "approved" | "changes_requested" | "commented";
  commitId: string;
  submittedAt: string;
}

/** A comment on a line of a pull request's diff; each belongs to a review, as on GitHub. */
export interface ReviewComment {
  id: number;
  reviewId: number;
  author: Account;
  body: string;
  path: string;
  line: number;
  side: "LEFT" | "RIGHT";
  commitId: string;
  createdAt: string;
  updatedAt: string;
}

export interface Repo {
  id: number;
  owner: Account;
  name: string;
  fullName: string;
  private: boolean;
  installationId: number;
  createdAt: string;
  /** Keyed by lower-cased name: GitHub label names are case-insensitive. */
  labels: Map<string, Label>;
  issues: Map<number, Issue>;
  files: Map<string, string>;
  /** Explicit collaborator permissions, keyed by lower-cased login. */
  collaborators: Map<string, Permission>;
}

export interface Installation {
  id: number;
  account: Account;
  createdAt: string;
}

/** GitHub timestamps have second precision. */
export function isoNow(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function randomToken(prefix: string): string {
  return prefix + randomBytes(27).toString("base64url").slice(0, 36);
}

/** Distinct ranges per kind so an id in a log line hints at what it names. */
const ID_BASES = {
  account: 100_000,
  repo: 200_000,
  issue: 300_000,
  comment: 1_000_000,
  label: 5_000,
  reaction: 7_000_000,
  event: 9_000_000,
  review: 11_000_000,
  reviewComment: 13_000_000,
} as const;

export class SimState {
  private readonly accounts = new Map<string, Account>();
  private readonly userTokens = new Map<string, Account>();
  private readonly repos = new Map<string, Repo>();
  private readonly comments = new Map<number, Comment>();
  private readonly installations = new Map<number, Installation>();
  /** `${org}/${team}` (lower-cased) → member logins (lower-cased). */
  private readonly teams = new Map<string, Set<string>>();
  private readonly counters: Record<keyof typeof ID_BASES, number> = { ...ID_BASES };

  constructor(readonly bot: Account) {
    this.accounts.set(bot.login.toLowerCase(), bot);
  }

  nextId(kind: keyof typeof ID_BASES): number {
    return ++this.counters[kind];
  }

  findAccount(login: string): Account | undefined {
    return this.accounts.get(login.toLowerCase());
  }

  accountByToken(token: string): Account | undefined {
    return this.userTokens.get(token);
  }

  addUser(login: string, type: "User" | "Bot"): Account {
    const existing = this.findAccount(login);
    if (existing) {
      if (existing.type !== type || !existing.token) {
        throw new Error(`The login ${login} is already taken by a ${existing.type === "Bot" ? "bot without a token" : existing.type}.`);
      }
      return existing;
    }
    const account: Account = { login, id: this.nextId("account"), type, token: randomToken("ghp_") };
    this.accounts.set(login.toLowerCase(), account);
    this.userTokens.set(account.token!, account);
    return account;
  }

  private accountOrNewOrganization(login: string): Account {
    const existing = this.findAccount(login);
    if (existing) return existing;
    const org: Account = { login, id: this.nextId("account"), type: "Organization" };
    this.accounts.set(login.toLowerCase(), org);
    return org;
  }

  addRepo(fullName: string, opts: { installationId?: number; private?: boolean }): Repo {
    const [ownerLogin, name, ...rest] = fullName.split("/");
    if (!ownerLogin || !name || rest.length > 0) throw new Error(`Expected "owner/name", got "${fullName}".`);
    if (this.repos.has(fullName.toLowerCase())) throw new Error(`The repository ${fullName} already exists.`);
    const owner = this.accountOrNewOrganization(ownerLogin);
    if (owner.type === "Bot") throw new Error(`${ownerLogin} is a bot; bots cannot own repositories.`);
    const installation = this.installationFor(owner, opts.installationId);
    const repo: Repo = {
      id: this.nextId("repo"),
      owner,
      name,
      fullName: `${owner.login}/${name}`,
      private: opts.private ?? false,
      installationId: installation.id,
      createdAt: isoNow(),
      labels: new Map(),
      issues: new Map(),
      files: new Map(),
      collaborators: new Map(),
    };
    this.repos.set(fullName.toLowerCase(), repo);
    return repo;
  }

  /** GitHub has one installation of an app per account, so a second repository of the same owner reuses it. */
  private installationFor(account: Account, requestedId: number | undefined): Installation {
    const existing = [...this.installations.values()].find((i) => i.account === account);
    if (existing) {
      if (requestedId !== undefined && requestedId !== existing.id) {
        throw new Error(`${account.login} already has installation ${existing.id}; an account has one installation per app.`);
      }
      return existing;
    }
    if (requestedId !== undefined && this.installations.has(requestedId)) {
      throw new Error(`Installation ${requestedId} already belongs to ${this.installations.get(requestedId)!.account.login}.`);
    }
    let id = requestedId ?? 1;
    while (this.installations.has(id)) id += 1;
    const installation: Installation = { id, account, createdAt: isoNow() };
    this.installations.set(id, installation);
    return installation;
  }

  findRepo(owner: string, name: string): Repo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  allRepos(): Repo[] {
    return [...this.repos.values()];
  }

  allInstallations(): Installation[] {
    return [...this.installations.values()];
  }

  findInstallation(id: number): Installation | undefined {
    return this.installations.get(id);
  }

  reposOfInstallation(id: number): Repo[] {
    return [...this.repos.values()].filter((r) => r.installationId === id);
  }

  findComment(repo: Repo, id: number): Comment | undefined {
    const comment = this.comments.get(id);
    return comment?.repo === repo ? comment : undefined;
  }

  /** Any repository's issue or pull request by its id: a GraphQL node id names no repository. */
  issueById(id: number): Issue | undefined {
    for (const repo of this.repos.values()) for (const issue of repo.issues.values()) if (issue.id === id) return issue;
    return undefined;
  }

  /** Any repository's comment: a GraphQL node id names no repository. */
  commentById(id: number): Comment | undefined {
    return this.comments.get(id);
  }

  indexComment(comment: Comment): void {
    this.comments.set(comment.id, comment);
  }

  forgetComment(comment: Comment): void {
    this.comments.delete(comment.id);
  }

  /** Adding an unknown label to an issue creates it in the repository, as GitHub does. */
  labelNamed(repo: Repo, name: string): Label {
    const key = name.toLowerCase();
    let label = repo.labels.get(key);
    if (!label) {
      label = { id: this.nextId("label"), name, color: "ededed", description: null, default: false };
      repo.labels.set(key, label);
    }
    return label;
  }

  addTeamMember(org: string, team: string, member: Account): void {
    const account = this.accountOrNewOrganization(org);
    if (account.type !== "Organization") throw new Error(`${org} is a ${account.type}, not an organization.`);
    const key = `${org}/${team}`.toLowerCase();
    const members = this.teams.get(key) ?? new Set<string>();
    members.add(member.login.toLowerCase());
    this.teams.set(key, members);
  }

  isTeamMember(org: string, team: string, login: string): boolean {
    return this.teams.get(`${org}/${team}`.toLowerCase())?.has(login.toLowerCase()) ?? false;
  }

  isOrgMember(org: Account, login: string): boolean {
    const prefix = `${org.login.toLowerCase()}/`;
    for (const [key, members] of this.teams) {
      if (key.startsWith(prefix) && members.has(login.toLowerCase())) return true;
    }
    return false;
  }
}
