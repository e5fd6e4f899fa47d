import { randomBytes } from "node:crypto";
import { hasRole, requireIssuesAccess, requirePullRequestsAccess, requireRole, requireVisible, type Actor } from "./access.js";
import { ApiError, notFound, validationFailed } from "./errors.js";
import { REACTION_CONTENTS, type Json, type Payloads } from "./payloads.js";
import {
  isoNow,
  type Account,
  type Comment,
  type ContentEdit,
  type Issue,
  type Label,
  type PullRequestParts,
  type Reaction,
  type Repo,
  type Review,
  type ReviewComment,
  type SimState,
} from "./state.js";
import type { ReactionContent } from "./types.js";

/**
 * Every change to issues, comments, labels and reactions, with GitHub's permission rules and webhooks.
 * REST routes and the simulator's "as a person" methods both come through here, so they cannot drift apart.
 * Each method validates everything before mutating, so a refused call never emits half its events.
 */

export interface WebhookEvent {
  event: "issues" | "issue_comment" | "pull_request" | "pull_request_review" | "pull_request_review_comment";
  action: string;
  payload: Json;
}

export interface OpContext {
  actor: Actor;
  /** REST buffers events until its response is sent; the "as a person" methods deliver at once. */
  emit: (event: WebhookEvent) => void;
}

export interface IssueChanges {
  title?: unknown;
  body?: unknown;
  state?: unknown;
  state_reason?: unknown;
  labels?: unknown;
}

const MAX_BODY_CHARS = 65_536;

export class Operations {
  constructor(
    private readonly state: SimState,
    private readonly payloads: Payloads,
  ) {}

  getIssue(actor: Actor, repo: Repo, number: number): Issue {
    requireVisible(actor, repo);
    requireIssuesAccess(actor, "read");
    const issue = repo.issues.get(number);
    if (!issue) throw notFound();
    return issue;
  }

  getComment(actor: Actor, repo: Repo, commentId: number): Comment {
    requireVisible(actor, repo);
    requireIssuesAccess(actor, "read");
    const comment = this.state.findComment(repo, commentId);
    if (!comment) throw notFound();
    return comment;
  }

  /** With `pullRequest`, a pull request: an issue with a branch, whose own events are `pull_request.*`. */
  createIssue(
    ctx: OpContext,
    repo: Repo,
    input: { title?: unknown; body?: unknown; labels?: unknown; assignees?: unknown },
    pullRequest?: PullRequestParts,
  ): Issue {
    requireVisible(ctx.actor, repo);
    // A pull request takes `pull_requests: write` (its route checks it), not `issues: write`.
    if (!pullRequest) requireIssuesAccess(ctx.actor, "write");
    const title = requiredText("Issue", "title", input.title);
    const body = optionalBody("Issue", input.body);
    // GitHub silently drops labels on new issues from people without push access.
    const labelNames = input.labels === undefined || !hasRole(ctx.actor, repo, "write") ? [] : labelList(input.labels);
    // Assignees likewise, and GitHub drops logins that cannot be assigned; here: unknown accounts and organizations.
    const assignees = input.assignees === undefined || !hasRole(ctx.actor, repo, "write") ? [] : this.assignable(input.assignees);
    const now = isoNow();
    const issue: Issue = {
      id: this.state.nextId("issue"),
      repo,
      number: repo.issues.size + 1,
      title,
      body,
      author: actingAccount(ctx.actor),
      viaApp: ctx.actor.kind === "installation",
      state: "open",
      stateReason: null,
      labels: [],
      assignees,
      comments: [],
      events: [],
      edits: [],
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      ...(pullRequest ? { pullRequest } : {}),
    };
    repo.issues.set(issue.number, issue);
    // GitHub's "opened" payload already carries the labels; one "labeled" per label follows it.
    for (const name of labelNames) {
      if (!labelOn(issue, name)) issue.labels.push(this.state.labelNamed(repo, name));
    }
    this.fireIssue(ctx, issue, "opened", {});
    for (const label of issue.labels) this.fireIssue(ctx, issue, "labeled", { label: this.payloads.label(repo, label) }, label);
    return issue;
  }

  /** Pushes a commit to a pull request's branch: a new head and `pull_request.synchronize`. */
  pushCommit(ctx: OpContext, repo: Repo, number: number): Issue {
    const issue = this.getIssue(ctx.actor, repo, number);
    if (!issue.pullRequest) throw validationFailed("PullRequest", "invalid", "number", "not a pull request");
    requireRole(ctx.actor, repo, "write");
    const before = issue.pullRequest.headSha;
    issue.pullRequest.headSha = randomBytes(20).toString("hex");
    issue.updatedAt = isoNow();
    const payload = this.payloads.webhook("synchronize", repo, actingAccount(ctx.actor), {
      number,
      before,
      after: issue.pullRequest.headSha,
      pull_request: this.payloads.pullRequest(issue),
    });
    ctx.emit({ event: "pull_request", action: "synchronize", payload });
    return issue;
  }

  /**
   * Submits a review (POST …/pulls/{n}/reviews): `pull_request_review.submitted`. As on GitHub, a
   * comment or a request for changes needs a body, and nobody approves or rejects their own.
   */
  submitReview(ctx: OpContext, repo: Repo, number: number, input: { body?: unknown; event?: unknown }): Review {
    const issue = this.reviewableIssue(ctx.actor, repo, number);
    const verdict = oneOf("PullRequestReview", "event", input.event ?? "COMMENT", ["COMMENT", "APPROVE", "REQUEST_CHANGES"] as const);
    const body = optionalBody("PullRequestReview", input.body);
    if (verdict !== "APPROVE" && !body) throw validationFailed("PullRequestReview", "missing_field", "body");
    const author = actingAccount(ctx.actor);
    if (verdict !== "COMMENT" && author === issue.author) {
      throw new ApiError(422, `Unprocessable Entity: "Can not ${verdict === "APPROVE" ? "approve" : "request changes on"} your own pull request"`);
    }
    const state = verdict === "APPROVE" ? "approved" : verdict === "REQUEST_CHANGES" ? "changes_requested" : "commented";
    return this.addReview(ctx, issue, author, body || null, state);
  }

  /**
   * Comments on a line of the diff (POST …/pulls/{n}/comments): `pull_request_review_comment.created`,
   * then the review GitHub wraps a single comment in, submitted without a body.
   */
  createReviewComment(ctx: OpContext, repo: Repo, number: number, input: { body?: unknown; path?: unknown; line?: unknown; side?: unknown }): ReviewComment {
    const issue = this.reviewableIssue(ctx.actor, repo, number);
    const body = checkLength("PullRequestReviewComment", "body", requiredText("PullRequestReviewComment", "body", input.body));
    const path = requiredText("PullRequestReviewComment", "path", input.path);
    if (typeof input.line !== "number" || !Number.isInteger(input.line) || input.line < 1)
      throw validationFailed("PullRequestReviewComment", "invalid", "line");
    const side = oneOf("PullRequestReviewComment", "side", input.side ?? "RIGHT", ["LEFT", "RIGHT"] as const);
    const parts = issue.pullRequest!;
    const now = isoNow();
    const comment: ReviewComment = {
      id: this.state.nextId("reviewComment"),
      reviewId: this.state.nextId("review"),
      author: actingAccount(ctx.actor),
      body,
      path,
      line: input.line,
      side,
      commitId: parts.headSha,
      createdAt: now,
      updatedAt: now,
    };
    parts.reviewComments.push(comment);
    const payload = this.payloads.webhook("created", repo, comment.author, {
      comment: this.payloads.reviewComment(issue, comment),
      pull_request: this.payloads.pullRequest(issue),
    });
    ctx.emit({ event: "pull_request_review_comment", action: "created", payload });
    this.addReview(ctx, issue, comment.author, null, "commented", comment.reviewId);
    return comment;
  }

  /** A pull request's reviews or line comments, for GET …/pulls/{n}/reviews and …/pulls/{n}/comments. */
  pullRequestParts(actor: Actor, repo: Repo, number: number): PullRequestParts {
    requireVisible(actor, repo);
    requirePullRequestsAccess(actor, "read");
    const parts = repo.issues.get(number)?.pullRequest;
    if (!parts) throw notFound();
    return parts;
  }

  updateIssue(ctx: OpContext, repo: Repo, number: number, changes: IssueChanges): Issue {
    const issue = this.getIssue(ctx.actor, repo, number);
    requireIssuesAccess(ctx.actor, "write");
    const isAuthor = ctx.actor.kind === "user" && ctx.actor.account === issue.author;
    if (!isAuthor) requireRole(ctx.actor, repo, "triage");
    const title = changes.title === undefined ? undefined : requiredText("Issue", "title", changes.title);
    const body = changes.body === undefined ? undefined : optionalBody("Issue", changes.body);
    const state = changes.state === undefined ? undefined : oneOf("Issue", "state", changes.state, ["open", "closed"] as const);
    const reason =
      changes.state_reason === undefined || changes.state_reason === null
        ? undefined
        : oneOf("Issue", "state_reason", changes.state_reason, ["completed", "not_planned", "reopened"] as const);
    // Like creation, label changes from people without push access are silently dropped.
    const labels = changes.labels === undefined || !hasRole(ctx.actor, repo, "write") ? undefined : labelList(changes.labels);

    const edited: Json = {};
    if (title !== undefined && title !== issue.title) edited.title = { from: issue.title };
    if (body !== undefined && body !== issue.body) edited.body = { from: issue.body ?? "" };
    if (Object.keys(edited).length > 0) {
      const now = isoNow();
      if (edited.body) recordEdit(issue, issue.body ?? "", body ?? "", actingAccount(ctx.actor), now);
      // GitHub lists a title change among the issue's events (a body edit is in its edit history instead).
      if (edited.title)
        issue.events.push({
          id: this.state.nextId("event"),
          event: "renamed",
          rename: { from: issue.title, to: title! },
          actor: actingAccount(ctx.actor),
          viaApp: ctx.actor.kind === "installation",
          createdAt: now,
        });
      issue.title = title ?? issue.title;
      issue.body = body === undefined ? issue.body : body;
      issue.updatedAt = now;
      this.fireIssue(ctx, issue, "edited", { changes: edited });
    }
    if (labels !== undefined) this.replaceLabels(ctx, issue, labels);
    if (state === "closed" && issue.state === "open") {
      this.close(ctx, issue, reason === "not_planned" ? "not_planned" : "completed");
    } else if (state === "open" && issue.state === "closed") {
      this.reopen(ctx, issue);
    }
    return issue;
  }

  createComment(ctx: OpContext, repo: Repo, number: number, body: unknown): Comment {
    const issue = this.getIssue(ctx.actor, repo, number);
    requireIssuesAccess(ctx.actor, "write");
    const text = commentBody(body);
    const now = isoNow();
    const comment: Comment = {
      id: this.state.nextId("comment"),
      repo,
      issueNumber: issue.number,
      body: text,
      author: actingAccount(ctx.actor),
      viaApp: ctx.actor.kind === "installation",
      createdAt: now,
      updatedAt: now,
      reactions: [],
      edits: [],
    };
    issue.comments.push(comment);
    issue.updatedAt = now;
    this.state.indexComment(comment);
    this.fireComment(ctx, issue, comment, "created", {});
    return comment;
  }

  updateComment(ctx: OpContext, repo: Repo, commentId: number, body: unknown): Comment {
    const comment = this.getComment(ctx.actor, repo, commentId);
    this.requireCommentOwnership(ctx.actor, comment);
    const text = commentBody(body);
    const from = comment.body;
    const now = isoNow();
    recordEdit(comment, from, text, actingAccount(ctx.actor), now);
    comment.body = text;
    comment.updatedAt = now;
    this.fireComment(ctx, this.issueOf(comment), comment, "edited", { changes: { body: { from } } });
    return comment;
  }

  /**
   * Deletes one saved version from a comment's edit history (GitHub's "Delete revision from
   * history"), as its author or anyone with write access may: its text is gone, who and when stay.
   * `version` counts from the oldest (0: the text as created). There is no REST route for it.
   */
  deleteRevision(ctx: OpContext, repo: Repo, commentId: number, version: number): void {
    const comment = this.getComment(ctx.actor, repo, commentId);
    this.requireCommentOwnership(ctx.actor, comment);
    deleteVersion(comment.edits, version, actingAccount(ctx.actor));
  }

  /** The same for an issue's body, as its author or anyone who may edit it. */
  deleteIssueRevision(ctx: OpContext, repo: Repo, number: number, version: number): void {
    const issue = this.getIssue(ctx.actor, repo, number);
    requireIssuesAccess(ctx.actor, "write");
    if (!(ctx.actor.kind === "user" && ctx.actor.account === issue.author)) requireRole(ctx.actor, repo, "triage");
    deleteVersion(issue.edits, version, actingAccount(ctx.actor));
  }

  deleteComment(ctx: OpContext, repo: Repo, commentId: number): void {
    const comment = this.getComment(ctx.actor, repo, commentId);
    this.requireCommentOwnership(ctx.actor, comment);
    const issue = this.issueOf(comment);
    issue.comments = issue.comments.filter((c) => c !== comment);
    this.state.forgetComment(comment);
    this.fireComment(ctx, issue, comment, "deleted", {});
  }

  addLabels(ctx: OpContext, repo: Repo, number: number, names: unknown): Issue {
    const issue = this.labelableIssue(ctx.actor, repo, number);
    this.attachLabels(ctx, issue, labelList(names));
    return issue;
  }

  setLabels(ctx: OpContext, repo: Repo, number: number, names: unknown): Issue {
    const issue = this.labelableIssue(ctx.actor, repo, number);
    this.replaceLabels(ctx, issue, labelList(names));
    return issue;
  }

  removeLabel(ctx: OpContext, repo: Repo, number: number, name: string): Issue {
    const issue = this.labelableIssue(ctx.actor, repo, number);
    const label = labelOn(issue, name);
    if (!label) throw notFound("Label does not exist");
    this.detachLabel(ctx, issue, label);
    return issue;
  }

  /** Reactions emit no webhook: GitHub has no reaction event. */
  react(actor: Actor, repo: Repo, commentId: number, content: unknown): { reaction: Reaction; created: boolean } {
    const comment = this.getComment(actor, repo, commentId);
    requireIssuesAccess(actor, "write");
    if (!REACTION_CONTENTS.includes(content as ReactionContent)) throw validationFailed("Reaction", "invalid", "content");
    const user = actingAccount(actor);
    const existing = comment.reactions.find((r) => r.user === user && r.content === content);
    if (existing) return { reaction: existing, created: false };
    const reaction: Reaction = { id: this.state.nextId("reaction"), content: content as ReactionContent, user, createdAt: isoNow() };
    comment.reactions.push(reaction);
    return { reaction, created: true };
  }

  deleteReaction(actor: Actor, repo: Repo, commentId: number, reactionId: number): void {
    const comment = this.getComment(actor, repo, commentId);
    requireIssuesAccess(actor, "write");
    const reaction = comment.reactions.find((r) => r.id === reactionId);
    if (!reaction) throw notFound();
    if (reaction.user !== actingAccount(actor)) throw new ApiError(403, "You can only delete your own reactions.");
    comment.reactions = comment.reactions.filter((r) => r !== reaction);
  }

  closeIssue(ctx: OpContext, repo: Repo, number: number): Issue {
    return this.updateIssue(ctx, repo, number, { state: "closed" });
  }

  reopenIssue(ctx: OpContext, repo: Repo, number: number): Issue {
    return this.updateIssue(ctx, repo, number, { state: "open" });
  }

  private close(ctx: OpContext, issue: Issue, reason: "completed" | "not_planned"): void {
    const now = isoNow();
    issue.state = "closed";
    issue.stateReason = reason;
    issue.closedAt = now;
    issue.updatedAt = now;
    this.fireIssue(ctx, issue, "closed", {});
  }

  private reopen(ctx: OpContext, issue: Issue): void {
    issue.state = "open";
    issue.stateReason = "reopened";
    issue.closedAt = null;
    issue.updatedAt = isoNow();
    this.fireIssue(ctx, issue, "reopened", {});
  }

  private reviewableIssue(actor: Actor, repo: Repo, number: number): Issue {
    requireVisible(actor, repo);
    requirePullRequestsAccess(actor, "write");
    const issue = repo.issues.get(number);
    if (!issue?.pullRequest) throw notFound();
    return issue;
  }

  private addReview(ctx: OpContext, issue: Issue, author: Account, body: string | null, state: Review["state"], id = this.state.nextId("review")): Review {
    const review: Review = { id, author, body, state, commitId: issue.pullRequest!.headSha, submittedAt: isoNow() };
    issue.pullRequest!.reviews.push(review);
    const payload = this.payloads.webhook("submitted", issue.repo, author, {
      review: this.payloads.review(issue, review, "webhook"),
      pull_request: this.payloads.pullRequest(issue),
    });
    ctx.emit({ event: "pull_request_review", action: "submitted", payload });
    return review;
  }

  private assignable(value: unknown): Account[] {
    if (!Array.isArray(value) || !value.every((login) => typeof login === "string")) throw wrongType("assignees", value, "an array");
    const accounts = value.map((login: string) => this.state.findAccount(login)).filter((a): a is Account => a !== undefined && a.type !== "Organization");
    return [...new Set(accounts)].slice(0, 10);
  }

  private labelableIssue(actor: Actor, repo: Repo, number: number): Issue {
    const issue = this.getIssue(actor, repo, number);
    requireIssuesAccess(actor, "write");
    requireRole(actor, repo, "triage");
    return issue;
  }

  private attachLabels(ctx: OpContext, issue: Issue, names: string[]): void {
    for (const name of names) {
      if (labelOn(issue, name)) continue;
      const label = this.state.labelNamed(issue.repo, name);
      issue.labels.push(label);
      issue.updatedAt = isoNow();
      this.fireIssue(ctx, issue, "labeled", { label: this.payloads.label(issue.repo, label) }, label);
    }
  }

  private detachLabel(ctx: OpContext, issue: Issue, label: Label): void {
    issue.labels = issue.labels.filter((l) => l !== label);
    issue.updatedAt = isoNow();
    this.fireIssue(ctx, issue, "unlabeled", { label: this.payloads.label(issue.repo, label) }, label);
  }

  private replaceLabels(ctx: OpContext, issue: Issue, names: string[]): void {
    const wanted = new Set(names.map((n) => n.toLowerCase()));
    for (const label of [...issue.labels]) {
      if (!wanted.has(label.name.toLowerCase())) this.detachLabel(ctx, issue, label);
    }
    this.attachLabels(ctx, issue, names);
  }

  /** Authors edit their own comments; others need push access (an installation needs `issues: write`). */
  private requireCommentOwnership(actor: Actor, comment: Comment): void {
    requireIssuesAccess(actor, "write");
    if (actor.kind === "user" && actor.account === comment.author) return;
    requireRole(actor, comment.repo, "write");
  }

  private issueOf(comment: Comment): Issue {
    const issue = comment.repo.issues.get(comment.issueNumber);
    if (!issue) throw new Error(`Comment ${comment.id} points at missing issue #${comment.issueNumber}.`);
    return issue;
  }

  private fireIssue(ctx: OpContext, issue: Issue, action: string, fields: Json, label?: Label): void {
    if (action === "labeled" || action === "unlabeled" || action === "closed" || action === "reopened") {
      issue.events.push({
        id: this.state.nextId("event"),
        event: action,
        actor: actingAccount(ctx.actor),
        viaApp: ctx.actor.kind === "installation",
        ...(label ? { label } : {}),
        createdAt: isoNow(),
      });
    }
    if (issue.pullRequest) {
      // GitHub sends a pull request's own events as `pull_request.*` (no `issues.*`), with the pull request and its number.
      const payload = this.payloads.webhook(action, issue.repo, actingAccount(ctx.actor), {
        number: issue.number,
        pull_request: this.payloads.pullRequest(issue),
        ...fields,
      });
      ctx.emit({ event: "pull_request", action, payload });
      return;
    }
    const payload = this.payloads.webhook(action, issue.repo, actingAccount(ctx.actor), { issue: this.payloads.issue(issue), ...fields });
    ctx.emit({ event: "issues", action, payload });
  }

  private fireComment(ctx: OpContext, issue: Issue, comment: Comment, action: string, fields: Json): void {
    const payload = this.payloads.webhook(action, issue.repo, actingAccount(ctx.actor), {
      ...fields,
      issue: this.payloads.issue(issue),
      comment: this.payloads.comment(comment),
    });
    ctx.emit({ event: "issue_comment", action, payload });
  }
}

/** Label names compare case-insensitively on GitHub. */
function labelOn(issue: Issue, name: string): Label | undefined {
  return issue.labels.find((l) => l.name.toLowerCase() === name.toLowerCase());
}

function actingAccount(actor: Actor): Account {
  if (actor.kind === "app") throw new ApiError(403, "Resource not accessible by integration");
  return actor.account;
}

/** GitHub's schema validation message for a value of the wrong JSON type. */
function wrongType(field: string, value: unknown, expected: string): ApiError {
  return new ApiError(422, `Invalid request.\n\nFor 'properties/${field}', ${JSON.stringify(value)} is not ${expected}.`);
}

function requiredText(resource: string, field: string, value: unknown): string {
  if (value === undefined || value === null || value === "") throw validationFailed(resource, "missing_field", field);
  if (typeof value !== "string") throw wrongType(field, value, "a string");
  return value;
}

function checkLength(resource: string, field: string, text: string): string {
  // GitHub counts characters, not UTF-16 code units.
  if (text.length > MAX_BODY_CHARS && [...text].length > MAX_BODY_CHARS) {
    throw validationFailed(resource, "custom", field, `${field} is too long (maximum is ${MAX_BODY_CHARS} characters)`);
  }
  return text;
}

function commentBody(value: unknown): string {
  return checkLength("IssueComment", "body", requiredText("IssueComment", "body", value));
}

function optionalBody(resource: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw wrongType("body", value, "a string");
  return checkLength(resource, "body", value);
}

function oneOf<T extends string>(resource: string, field: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw validationFailed(resource, "invalid", field);
  return value as T;
}

/** Labels arrive as `["a"]`, `{labels: ["a"]}` or `[{name: "a"}]`, as GitHub accepts all three. */
function labelList(value: unknown): string[] {
  const list = Array.isArray(value) ? value : (value as { labels?: unknown } | null)?.labels;
  if (!Array.isArray(list)) throw wrongType("labels", value, "an array");
  return list.map((item: unknown) => {
    const name = typeof item === "object" && item !== null ? (item as { name?: unknown }).name : item;
    if (typeof name !== "string" || name.trim() === "") throw validationFailed("Label", "invalid", "name");
    return name;
  });
}

/** GitHub's edit history of a comment or an issue's body starts at the first edit, with the text as created by its author. */
function recordEdit(edited: { author: Account; createdAt: string; edits: ContentEdit[] }, from: string, to: string, editor: Account, at: string): void {
  if (edited.edits.length === 0) edited.edits.push({ editor: edited.author, editedAt: edited.createdAt, body: from });
  edited.edits.push({ editor, editedAt: at, body: to });
}

/** Marks a saved version deleted from an edit history: its text is gone, who and when stay; the current one cannot be. */
function deleteVersion(edits: ContentEdit[], version: number, by: Account): void {
  const edit = edits[version];
  if (!edit || edit === edits.at(-1)) throw validationFailed("Comment", "invalid", "revision");
  edit.deleted = { by, at: isoNow() };
}
