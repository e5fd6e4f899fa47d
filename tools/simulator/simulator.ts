import { createPublicKey, createSign, generateKeyPair, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import type { Actor } from "./access.js";
import { Authenticator } from "./auth.js";
import { GitHttp } from "./gitHttp.js";
import { GitRepos } from "./gitRepos.js";
import { Operations, type OpContext } from "./operations.js";
import { Payloads, type AppInfo } from "./payloads.js";
import { Router } from "./router.js";
import { createRoutes } from "./routes.js";
import { answerGraphql } from "./graphql.js";
import { pullRoutes } from "./pullRoutes.js";
import { searchRoute } from "./search.js";
import type { ContentLimits, ContentWrite, RateBudget, RateResource } from "./ratelimit.js";
import { API_PREFIX, ApiServer, GRAPHQL_PATH } from "./server.js";
import { isoNow, SimState, type Account, type Comment, type Issue, type Repo } from "./state.js";
import type {
  ApiCall,
  Delivery,
  LostDelivery,
  Permission,
  ReactionContent,
  SimComment,
  SimIssue,
  SimRepo,
  SimulatorOptions,
  SimUser,
  SimUserRef,
} from "./types.js";
import { WebhookDispatcher } from "./webhooks.js";

/**
 * A stateful stand-in for GitHub (REST under /api/v3, like GitHub Enterprise, plus signed webhooks)
 * for end-to-end tests, the demo and benchmarks. Point the app at it with GHE_HOST=sim.host and
 * GHE_PROTOCOL=http, APP_ID=sim.appId, PRIVATE_KEY=sim.privateKey.
 */
export class GitHubSimulator {
  readonly url: string;
  readonly apiUrl: string;
  readonly host: string;
  readonly appId: number;
  readonly appSlug: string;
  readonly botLogin: string;
  readonly privateKey: string;
  /** The webhook secret it signs deliveries with. */
  readonly webhookSecret: string;
  /** Every REST request, in arrival order. */
  calls: ApiCall[] = [];
  /** Every webhook delivery attempt, in order. */
  deliveries: Delivery[] = [];
  /** Events lost on purpose (loseDeliveries), oldest first: never sent, each redeliverable. */
  lostDeliveries: LostDelivery[] = [];

  private readonly state: SimState;
  private readonly payloads: Payloads;
  private readonly ops: Operations;
  private readonly dispatcher: WebhookDispatcher;
  private readonly appInfo: AppInfo;
  private readonly api: ApiServer;
  /** Each repository's bare git repository, served over smart HTTP at `${url}/{owner}/{repo}.git`. */
  readonly git: GitRepos;
  private readonly ownsGitRoot: boolean;
  /** What answers the web pages html_url links point at; none by default (404 as JSON, like any unknown path). */
  private web: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;

  /** A JWT of this App, as the app signs one for `/app` routes (for rigs and tests that act as the App). */
  appJwt(): string {
    const now = Math.floor(Date.now() / 1000);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const unsigned = `${encode({ alg: "RS256", typ: "JWT" })}.${encode({ iat: now - 30, exp: now + 570, iss: this.appId })}`;
    return `${unsigned}.${createSign("RSA-SHA256").update(unsigned).sign(this.privateKey).toString("base64url")}`;
  }

  /** The environment that points the app at this simulator as its GitHub App host. */
  appEnv(): { APP_ID: string; PRIVATE_KEY: string; WEBHOOK_SECRET: string; GHE_HOST: string; GHE_PROTOCOL: "http" } {
    return { APP_ID: String(this.appId), PRIVATE_KEY: this.privateKey, WEBHOOK_SECRET: this.webhookSecret, GHE_HOST: this.host, GHE_PROTOCOL: "http" };
  }

  static async start(options: SimulatorOptions): Promise<GitHubSimulator> {
    // PKCS#1, the format of the .pem GitHub hands out for an app.
    const keys = await promisify(generateKeyPair)("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    return new GitHubSimulator(options, server, keys.privateKey, keys.publicKey);
  }

  private constructor(
    options: SimulatorOptions,
    private readonly server: Server,
    privateKey: string,
    publicKey: string,
  ) {
    const { port } = server.address() as AddressInfo;
    const log = options.log ?? (() => {});
    this.host = `127.0.0.1:${port}`;
    this.url = `http://${this.host}`;
    this.apiUrl = `${this.url}${API_PREFIX}`;
    this.appId = options.appId ?? 1;
    this.appSlug = options.appSlug ?? "escalation";
    this.botLogin = `${this.appSlug}[bot]`;
    this.privateKey = privateKey;
    this.webhookSecret = options.webhookSecret;
    this.appInfo = {
      id: this.appId,
      slug: this.appSlug,
      // As app.yml asks.
      permissions: { issues: "write", metadata: "read", contents: "write", pull_requests: "write" },
      events: ["issues", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment"],
      createdAt: isoNow(),
    };
    this.state = new SimState({ login: this.botLogin, id: 9000 + this.appId, type: "Bot" });
    this.payloads = new Payloads(this.state, { web: this.url, api: this.apiUrl }, this.appInfo);
    this.ops = new Operations(this.state, this.payloads);
    this.dispatcher = new WebhookDispatcher({
      secret: options.webhookSecret,
      appId: this.appId,
      url: options.webhookUrl,
      record: (delivery) => this.deliveries.push(delivery),
      lost: (delivery) => this.lostDeliveries.push(delivery),
      log,
    });
    const auth = new Authenticator(this.state, createPublicKey(publicKey), this.appInfo);
    this.ownsGitRoot = options.gitRoot === undefined;
    this.git = new GitRepos(options.gitRoot ?? mkdtempSync(join(tmpdir(), "sim-git-root-")));
    const api = (this.api = new ApiServer({
      baseUrl: this.url,
      router: new Router([
        ...createRoutes({ state: this.state, ops: this.ops, payloads: this.payloads, auth }),
        ...pullRoutes({ state: this.state, ops: this.ops, payloads: this.payloads, git: this.git }),
        searchRoute(this.state, this.payloads),
      ]),
      graphql: {
        method: "POST",
        template: "/graphql",
        auth: "token",
        handle: (req) => ({ status: 200, json: answerGraphql(this.state, req.actor, req.body) }),
      },
      auth,
      appSlug: this.appSlug,
      deliver: (event) => this.dispatcher.enqueue(event),
      record: (call) => this.calls.push(call),
      inspect: options.inspect,
      log,
    }));
    api.content.limits = options.contentLimits;
    const git = new GitHttp({ state: this.state, auth, repos: this.git, log });
    server.on("request", (req, res) => {
      if (GitHttp.matches(req.url)) return void git.handle(req, res);
      if (this.web && !isApiPath(req.url)) return this.web(req, res);
      void api.handle(req, res);
    });
  }

  /**
   * GitHub's secondary limit on content-creating requests (comments, reactions, labels, edits, new
   * issues), per caller (an installation, a user) over a sliding minute and hour: past it, 403 (or
   * 429) "You have exceeded a secondary rate limit…" with `retry-after`. Undefined turns it off.
   */
  setContentLimits(limits: ContentLimits | undefined): void {
    this.api.content.limits = limits;
  }

  /** The next content-creating request (of that installation, or anyone's) is refused with a secondary limit. */
  tripSecondaryLimit(options: { installationId?: number; retryAfterSeconds?: number | null; status?: 403 | 429 } = {}): void {
    this.api.content.trip({
      caller: options.installationId === undefined ? undefined : `installation:${options.installationId}`,
      retryAfterSeconds: options.retryAfterSeconds,
      status: options.status,
    });
  }

  /** The next `count` API requests (REST or GraphQL, anyone's) are answered `status`: a burst of GitHub's server errors. */
  failRequests(count: number, status: 500 | 502 | 503 = 502): void {
    this.api.failNext(count, status);
  }

  /** The next `count` webhook events are lost: never delivered, as in a GitHub outage; each can be redelivered. */
  loseDeliveries(count: number): void {
    this.dispatcher.loseNext(count);
  }

  /** Every content-creating REST request, accepted or refused, in arrival order. */
  get contentWrites(): readonly ContentWrite[] {
    return this.api.content.writes;
  }

  /** The issue's events (label changes, closing, reopening), oldest first. */
  issueEvents(repo: string, n: number): Array<{ event: string; label?: string; actor: string; created_at: string }> {
    return this.issueRecord(repo, n).events.map((e) => ({
      event: e.event,
      ...(e.label ? { label: e.label.name } : {}),
      actor: e.actor.login,
      created_at: e.createdAt,
    }));
  }

  /** What the App's installations have granted, as when an owner has not yet accepted new permissions; tokens issued later follow. */
  setAppPermissions(permissions: Record<string, "read" | "write">): void {
    this.appInfo.permissions = { ...permissions };
  }

  /** Serves the web pages (the paths html_url links point at, everything outside the API and git) with `handler`. */
  serveWeb(handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined): void {
    this.web = handler;
  }

  setWebhookUrl(url: string | undefined): void {
    this.dispatcher.setUrl(url);
  }

  /** Creates the owner (an organization, unless a user of that login exists) and the app's installation on it if missing. */
  addRepo(fullName: string, opts: { installationId?: number; private?: boolean } = {}): SimRepo {
    return this.repoSnapshot(this.state.addRepo(fullName, opts));
  }

  addUser(login: string, opts: { type?: "User" | "Bot" } = {}): SimUser {
    const account = this.state.addUser(login, opts.type ?? "User");
    return { login: account.login, id: account.id, type: account.type as "User" | "Bot", token: account.token! };
  }

  setPermission(repoFullName: string, login: string, permission: Permission): void {
    this.repo(repoFullName).collaborators.set(this.account(login).login.toLowerCase(), permission);
  }

  addTeamMember(org: string, teamSlug: string, login: string): void {
    this.state.addTeamMember(org, teamSlug, this.account(login));
  }

  /** Gives the repository's git history its first commit with exactly these files (before anything reads it). */
  async seedGit(repoFullName: string, files: Record<string, string>): Promise<void> {
    await this.git.ensure(this.repo(repoFullName), new Map(Object.entries(files)));
  }

  /** Pushes a commit to `branch` as another person would (for a push that races the app's). */
  pushToBranch(repoFullName: string, branch: string, files: Record<string, string>, message = "A human's commit"): Promise<string> {
    return this.git.commit(this.repo(repoFullName), branch, files, message);
  }

  /** Branch name → commit of the repository's git history. */
  branches(repoFullName: string): Promise<Record<string, string>> {
    return this.git.heads(this.repo(repoFullName));
  }

  /** A file's text at a ref of the repository's git history; undefined when absent. */
  fileAt(repoFullName: string, ref: string, path: string): Promise<string | undefined> {
    return this.git.show(this.repo(repoFullName), ref, path);
  }

  /** The commits reachable from `ref`, newest first. */
  gitLog(repoFullName: string, ref: string): Promise<Array<{ sha: string; author: string; email: string; subject: string }>> {
    return this.git.log(this.repo(repoFullName), ref);
  }

  setFile(repoFullName: string, path: string, content: string): void {
    this.repo(repoFullName).files.set(path.replace(/^\/+/, ""), content);
  }

  createIssue(repo: string, input: { title: string; body?: string; author: string; labels?: string[]; assignees?: string[] }): SimIssue {
    const { target, ctx } = this.asPerson(repo, input.author);
    return this.issueSnapshot(this.ops.createIssue(ctx, target, input));
  }

  /** A pull request: an issue with a branch (its head commit), numbered with the issues as on GitHub. */
  createPullRequest(repo: string, input: { title: string; body?: string; author: string; assignees?: string[] }): SimIssue {
    const { target, ctx } = this.asPerson(repo, input.author);
    return this.issueSnapshot(this.ops.createIssue(ctx, target, input, { headSha: randomBytes(20).toString("hex"), reviews: [], reviewComments: [] }));
  }

  /**
   * Issues written straight into the simulator's state, each with its comments and labels, as they
   * would be on GitHub, but with no webhook: many repositories' history, cheaply, before an app
   * starts (a rebuild's benchmark). The authors act under the usual permission rules. With `at`
   * (ISO, whole seconds), everything of the issue is dated then: history older than a reconciliation's window.
   */
  seedIssues(
    repo: string,
    issues: ReadonlyArray<{
      title: string;
      body?: string;
      author: string;
      labels?: string[];
      comments?: ReadonlyArray<{ author: string; body: string }>;
      at?: string;
    }>,
  ): SimIssue[] {
    const quietly = (login: string) => ({ ...this.asPerson(repo, login).ctx, emit: () => {} });
    const target = this.repo(repo);
    return issues.map((input) => {
      const issue = this.ops.createIssue(quietly(input.author), target, { title: input.title, body: input.body });
      for (const c of input.comments ?? []) this.ops.createComment(quietly(c.author), target, issue.number, c.body);
      if (input.labels?.length) this.ops.addLabels(quietly(this.botLogin), target, issue.number, input.labels);
      if (input.at) {
        issue.createdAt = issue.updatedAt = input.at;
        for (const c of issue.comments) c.createdAt = c.updatedAt = input.at;
        for (const e of issue.events) e.createdAt = input.at;
      }
      return this.issueSnapshot(issue);
    });
  }

  /** What is left of an installation's primary rate limit (`core`: REST, `graphql`, `search`), as its tokens' headers say. */
  rateLimit(installationId: number, resource: RateResource = "core"): RateBudget {
    return this.api.rateBudget(`installation:${installationId}`, resource);
  }

  /** Submits a review of the pull request, delivering `pull_request_review.submitted`. */
  submitReview(repo: string, number: number, author: string, input: { body?: string; event?: "COMMENT" | "APPROVE" | "REQUEST_CHANGES" }): { id: number } {
    const { target, ctx } = this.asPerson(repo, author);
    return { id: this.ops.submitReview(ctx, target, number, input).id };
  }

  /** Comments on a line of the pull request's diff, delivering `pull_request_review_comment.created` (and its review's `submitted`). */
  reviewComment(
    repo: string,
    number: number,
    author: string,
    input: { body: string; path: string; line: number; side?: "LEFT" | "RIGHT" },
  ): { id: number; reviewId: number } {
    const { target, ctx } = this.asPerson(repo, author);
    const comment = this.ops.createReviewComment(ctx, target, number, input);
    return { id: comment.id, reviewId: comment.reviewId };
  }

  /** Pushes a commit to the pull request's branch, delivering `pull_request.synchronize`. */
  pushCommit(repo: string, number: number, actor: string): void {
    const { target, ctx } = this.asPerson(repo, actor);
    this.ops.pushCommit(ctx, target, number);
  }

  comment(repo: string, issue: number, author: string, body: string): SimComment {
    const { target, ctx } = this.asPerson(repo, author);
    return this.commentSnapshot(this.ops.createComment(ctx, target, issue, body));
  }

  editComment(repo: string, commentId: number, author: string, body: string): SimComment {
    const { target, ctx } = this.asPerson(repo, author);
    return this.commentSnapshot(this.ops.updateComment(ctx, target, commentId, body));
  }

  /** Edits the issue's body as `editor` (its author or a person with triage access), with its `issues.edited` webhook. */
  editIssueBody(repo: string, number: number, editor: string, body: string): void {
    const { target, ctx } = this.asPerson(repo, editor);
    this.ops.updateIssue(ctx, target, number, { body });
  }

  /** Changes the issue's title as `editor` (its author or a person with triage access), with its `issues.edited` webhook. */
  editIssueTitle(repo: string, number: number, editor: string, title: string): void {
    const { target, ctx } = this.asPerson(repo, editor);
    this.ops.updateIssue(ctx, target, number, { title });
  }

  /** Deletes version `version` (0: as created) from the comment's edit history as `actor` (no webhook, as on GitHub). */
  deleteRevision(repo: string, commentId: number, actor: string, version: number): void {
    const { target, ctx } = this.asPerson(repo, actor);
    this.ops.deleteRevision(ctx, target, commentId, version);
  }

  /** Deletes version `version` (0: as created) from the issue body's edit history as `actor` (no webhook, as on GitHub). */
  deleteIssueRevision(repo: string, number: number, actor: string, version: number): void {
    const { target, ctx } = this.asPerson(repo, actor);
    this.ops.deleteIssueRevision(ctx, target, number, version);
  }

  deleteComment(repo: string, commentId: number, author: string): void {
    const { target, ctx } = this.asPerson(repo, author);
    this.ops.deleteComment(ctx, target, commentId);
  }

  /** Reacts to a comment as `user` (no webhook: GitHub has no reaction event). */
  react(repo: string, commentId: number, user: string, content: ReactionContent): void {
    const { target, ctx } = this.asPerson(repo, user);
    this.ops.react(ctx.actor, target, commentId, content);
  }

  addLabels(repo: string, issue: number, actor: string, labels: string[]): void {
    const { target, ctx } = this.asPerson(repo, actor);
    this.ops.addLabels(ctx, target, issue, labels);
  }

  removeLabel(repo: string, issue: number, actor: string, label: string): void {
    const { target, ctx } = this.asPerson(repo, actor);
    this.ops.removeLabel(ctx, target, issue, label);
  }

  closeIssue(repo: string, issue: number, actor: string): void {
    const { target, ctx } = this.asPerson(repo, actor);
    this.ops.closeIssue(ctx, target, issue);
  }

  reopenIssue(repo: string, issue: number, actor: string): void {
    const { target, ctx } = this.asPerson(repo, actor);
    this.ops.reopenIssue(ctx, target, issue);
  }

  issue(repo: string, n: number): SimIssue {
    return this.issueSnapshot(this.issueRecord(repo, n));
  }

  /** Every issue and pull request of the repository, by number. */
  issues(repo: string): SimIssue[] {
    return [...this.repo(repo).issues.values()].sort((a, b) => a.number - b.number).map((issue) => this.issueSnapshot(issue));
  }

  comments(repo: string, n: number): SimComment[] {
    return this.issueRecord(repo, n).comments.map((c) => this.commentSnapshot(c));
  }

  redeliver(deliveryId: string): Promise<number> {
    return this.dispatcher.redeliver(deliveryId);
  }

  setWebhookDelivery(mode: "live" | "paused"): void {
    this.dispatcher.setMode(mode);
  }

  whenDelivered(): Promise<void> {
    return this.dispatcher.whenDelivered();
  }

  async stop(): Promise<void> {
    this.dispatcher.close();
    await new Promise<void>((resolve, reject) => {
      this.server.close((error) => (error ? reject(error) : resolve()));
      this.server.closeAllConnections();
    });
    if (!this.ownsGitRoot) return;
    rmSync(this.git.root, { recursive: true, force: true });
  }

  /**
   * The bot login acts through the repository's installation with the app's full permissions;
   * any other login acts as that user, under the same permission rules as a REST call.
   */
  private asPerson(repoFullName: string, login: string): { target: Repo; ctx: OpContext } {
    const target = this.repo(repoFullName);
    const actor: Actor =
      login.toLowerCase() === this.botLogin.toLowerCase()
        ? {
            kind: "installation",
            account: this.state.bot,
            grant: { installationId: target.installationId, permissions: { ...this.appInfo.permissions } },
          }
        : { kind: "user", account: this.account(login) };
    return { target, ctx: { actor, emit: (event) => this.dispatcher.enqueue(event) } };
  }

  private repo(fullName: string): Repo {
    const [owner = "", name = ""] = fullName.split("/");
    const repo = this.state.findRepo(owner, name);
    if (!repo) throw new Error(`Unknown repository ${fullName}; call addRepo("${fullName}") first.`);
    return repo;
  }

  private account(login: string): Account {
    const account = this.state.findAccount(login);
    if (!account || account.type === "Organization") throw new Error(`Unknown user ${login}; call addUser("${login}") first.`);
    return account;
  }

  private issueRecord(repoFullName: string, n: number): Issue {
    const issue = this.repo(repoFullName).issues.get(n);
    if (!issue) throw new Error(`No issue #${n} in ${repoFullName}.`);
    return issue;
  }

  private repoSnapshot(repo: Repo): SimRepo {
    return {
      id: repo.id,
      name: repo.name,
      full_name: repo.fullName,
      owner: repo.owner.login,
      private: repo.private,
      installation_id: repo.installationId,
      html_url: this.payloads.repoLinks(repo).html,
    };
  }

  private issueSnapshot(issue: Issue): SimIssue {
    return {
      id: issue.id,
      number: issue.number,
      title: issue.title,
      body: issue.body,
      state: issue.state,
      state_reason: issue.stateReason,
      labels: issue.labels.map((l) => l.name),
      assignees: issue.assignees.map((a) => a.login),
      user: userRef(issue.author),
      comments: issue.comments.length,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      html_url: `${this.payloads.repoLinks(issue.repo).html}/issues/${issue.number}`,
      pull_request: issue.pullRequest !== undefined,
    };
  }

  private commentSnapshot(comment: Comment): SimComment {
    return {
      id: comment.id,
      issue_number: comment.issueNumber,
      body: comment.body,
      user: userRef(comment.author),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      html_url: `${this.payloads.repoLinks(comment.repo).html}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
      reactions: comment.reactions.map((r) => ({ content: r.content, user: r.user.login })),
    };
  }
}

function isApiPath(url: string | undefined): boolean {
  const path = url ?? "/";
  return path.startsWith(`${API_PREFIX}/`) || path.startsWith(GRAPHQL_PATH);
}

function userRef(account: Account): SimUserRef {
  return { login: account.login, id: account.id, type: account.type };
}
