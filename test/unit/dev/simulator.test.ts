import { createHmac, createSign, generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhooks } from "@octokit/webhooks";
import { Probot } from "probot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GitHubSimulator, type SimUser } from "../../../tools/simulator/index.js";

const SECRET = "webhook-secret";

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  payload: Record<string, any>;
}

/** A webhook receiver that records every request and answers with the next status of `statuses` (200 once exhausted). */
async function startReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, raw, payload: JSON.parse(raw) });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    events: () => received.map((r) => `${String(r.headers["x-github-event"])}.${r.payload.action}`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function signJwt(privateKey: string, claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${encode({ alg: "RS256", typ: "JWT" })}.${encode(claims)}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(privateKey).toString("base64url");
  return `${unsigned}.${signature}`;
}

function appJwt(sim: GitHubSimulator, overrides: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(sim.privateKey, { iat: now - 30, exp: now + 570, iss: sim.appId, ...overrides });
}

interface CallResult {
  status: number;
  headers: Headers;
  body: any;
}

async function call(sim: GitHubSimulator, method: string, path: string, options: { auth?: string; body?: unknown; accept?: string } = {}): Promise<CallResult> {
  const response = await fetch(`${sim.apiUrl}${path}`, {
    method,
    headers: {
      ...(options.auth ? { authorization: options.auth } : {}),
      ...(options.accept ? { accept: options.accept } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.startsWith("application/json") ?? false;
  return { status: response.status, headers: response.headers, body: isJson && text ? JSON.parse(text) : text };
}

async function installationToken(sim: GitHubSimulator, body?: unknown): Promise<string> {
  const result = await call(sim, "POST", "/app/installations/1/access_tokens", { auth: `Bearer ${appJwt(sim)}`, body });
  expect(result.status).toBe(201);
  return `token ${result.body.token as string}`;
}

describe("GitHubSimulator", () => {
  let sim: GitHubSimulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let alice: SimUser;
  const REPO = "acme/widgets";

  beforeEach(async () => {
    receiver = await startReceiver();
    sim = await GitHubSimulator.start({ webhookSecret: SECRET, webhookUrl: receiver.url });
    sim.addRepo(REPO);
    alice = sim.addUser("alice");
    sim.createIssue(REPO, { title: "Agent needs help", body: "context", author: sim.botLogin });
    await sim.whenDelivered();
    receiver.received.length = 0;
    sim.deliveries.length = 0;
  });

  afterEach(async () => {
    await sim.stop();
    await receiver.close();
  });

  describe("app authentication", () => {
    it("accepts a JWT signed with the generated key and rejects forged, expired or missing ones", async () => {
      const ok = await call(sim, "GET", "/app", { auth: `Bearer ${appJwt(sim)}` });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({
        id: 1,
        slug: "escalation",
        permissions: { issues: "write", metadata: "read" },
        events: ["issues", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment"],
      });

      const stringIss = await call(sim, "GET", "/app", { auth: `Bearer ${appJwt(sim, { iss: "1" })}` });
      expect(stringIss.status).toBe(200);

      const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
      const now = Math.floor(Date.now() / 1000);
      const forged = await call(sim, "GET", "/app", { auth: `Bearer ${signJwt(otherKey, { iat: now, exp: now + 60, iss: 1 })}` });
      expect(forged.status).toBe(401);
      expect(forged.body.message).toBe("A JSON web token could not be decoded");

      const wrongApp = await call(sim, "GET", "/app", { auth: `Bearer ${appJwt(sim, { iss: 2 })}` });
      expect(wrongApp.body.message).toBe("A JSON web token could not be decoded");

      const expired = await call(sim, "GET", "/app", { auth: `Bearer ${appJwt(sim, { iat: now - 700, exp: now - 100 })}` });
      expect(expired.status).toBe(401);
      const tooLong = await call(sim, "GET", "/app", { auth: `Bearer ${appJwt(sim, { exp: now + 3600 })}` });
      expect(tooLong.status).toBe(401);

      const userToken = await call(sim, "GET", "/app", { auth: `token ${alice.token}` });
      expect(userToken.body.message).toBe("A JSON web token could not be decoded");

      const none = await call(sim, "GET", "/app");
      expect(none).toMatchObject({ status: 401, body: { message: "Requires authentication" } });
    });

    it("only accepts a JWT on app routes and only tokens elsewhere", async () => {
      const jwtOnRepo = await call(sim, "GET", `/repos/${REPO}`, { auth: `Bearer ${appJwt(sim)}` });
      expect(jwtOnRepo).toMatchObject({ status: 401, body: { message: "Bad credentials" } });

      const installations = await call(sim, "GET", "/app/installations", { auth: `Bearer ${appJwt(sim)}` });
      expect(installations.body).toHaveLength(1);
      expect(installations.body[0]).toMatchObject({ id: 1, app_id: 1, account: { login: "acme", type: "Organization" } });

      const repoInstallation = await call(sim, "GET", `/repos/${REPO}/installation`, { auth: `Bearer ${appJwt(sim)}` });
      expect(repoInstallation.body.id).toBe(1);

      const bearerUser = await call(sim, "GET", `/repos/${REPO}`, { auth: `Bearer ${alice.token}` });
      expect(bearerUser.body.full_name).toBe(REPO);

      const unknownToken = await call(sim, "GET", `/repos/${REPO}`, { auth: "token ghp_nope" });
      expect(unknownToken).toMatchObject({ status: 401, body: { message: "Bad credentials" } });
    });
  });

  describe("installation access tokens", () => {
    it("mints a one-hour token for the installation and 404s an unknown installation", async () => {
      const before = Date.now();
      const result = await call(sim, "POST", "/app/installations/1/access_tokens", { auth: `Bearer ${appJwt(sim)}` });
      expect(result.status).toBe(201);
      expect(result.body.token).toMatch(/^ghs_[A-Za-z0-9_-]{36}$/);
      expect(result.body.repository_selection).toBe("all");
      expect(result.body.permissions).toEqual({ issues: "write", metadata: "read", contents: "write", pull_requests: "write" });
      const expiresIn = Date.parse(result.body.expires_at) - before;
      expect(expiresIn).toBeGreaterThan(59 * 60 * 1000);
      expect(expiresIn).toBeLessThanOrEqual(60 * 60 * 1000 + 1000);

      const repos = await call(sim, "GET", "/installation/repositories", { auth: `token ${result.body.token}` });
      expect(repos.body.total_count).toBe(1);
      expect(repos.body.repositories[0].full_name).toBe(REPO);

      const unknown = await call(sim, "POST", "/app/installations/99/access_tokens", { auth: `Bearer ${appJwt(sim)}` });
      expect(unknown).toMatchObject({ status: 404, body: { message: "Not Found" } });
    });

    it("rejects an installation token once its hour is over", async () => {
      const auth = await installationToken(sim);
      expect((await call(sim, "GET", `/repos/${REPO}`, { auth })).status).toBe(200);
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        vi.setSystemTime(Date.now() + 61 * 60 * 1000);
        const late = await call(sim, "GET", `/repos/${REPO}`, { auth });
        expect(late).toMatchObject({ status: 401, body: { message: "Bad credentials" } });
      } finally {
        vi.useRealTimers();
      }
    });

    it("narrows a token to the named repositories: others answer 404", async () => {
      sim.addRepo("acme/gadgets");
      sim.createIssue("acme/gadgets", { title: "other", author: sim.botLogin });
      const narrowed = await call(sim, "POST", "/app/installations/1/access_tokens", {
        auth: `Bearer ${appJwt(sim)}`,
        body: { repositories: ["widgets"] },
      });
      expect(narrowed.body.repository_selection).toBe("selected");
      expect(narrowed.body.repositories.map((r: { full_name: string }) => r.full_name)).toEqual([REPO]);
      const auth = `token ${narrowed.body.token}`;

      expect((await call(sim, "GET", `/repos/${REPO}/issues/1`, { auth })).status).toBe(200);
      const other = await call(sim, "GET", "/repos/acme/gadgets/issues/1", { auth });
      expect(other).toMatchObject({ status: 404, body: { message: "Not Found" } });

      const missing = await call(sim, "POST", "/app/installations/1/access_tokens", {
        auth: `Bearer ${appJwt(sim)}`,
        body: { repositories: ["nope"] },
      });
      expect(missing.status).toBe(422);
    });

    it("refuses issue writes to a token without issues: write", async () => {
      const auth = await installationToken(sim, { permissions: { issues: "read" } });
      expect((await call(sim, "GET", `/repos/${REPO}/issues/1`, { auth })).status).toBe(200);
      const write = await call(sim, "POST", `/repos/${REPO}/issues/1/comments`, { auth, body: { body: "hi" } });
      expect(write).toMatchObject({ status: 403, body: { message: "Resource not accessible by integration" } });
      expect(sim.comments(REPO, 1)).toHaveLength(0);

      const escalate = await call(sim, "POST", "/app/installations/1/access_tokens", {
        auth: `Bearer ${appJwt(sim)}`,
        body: { permissions: { administration: "write" } },
      });
      expect(escalate.status).toBe(422);
    });
  });

  describe("comments", () => {
    it("records the author: the user for a personal token, the bot for an installation token", async () => {
      const byUser = await call(sim, "POST", `/repos/${REPO}/issues/1/comments`, { auth: `token ${alice.token}`, body: { body: "from alice" } });
      expect(byUser.status).toBe(201);
      expect(byUser.body).toMatchObject({ body: "from alice", user: { login: "alice", type: "User" }, performed_via_github_app: null });

      const auth = await installationToken(sim);
      const byBot = await call(sim, "POST", `/repos/${REPO}/issues/1/comments`, { auth, body: { body: "from the app" } });
      expect(byBot.status).toBe(201);
      expect(byBot.body.user).toMatchObject({ login: "escalation[bot]", type: "Bot", id: 9001 });
      expect(byBot.body.performed_via_github_app).toMatchObject({ slug: "escalation" });

      const stored = sim.comments(REPO, 1);
      expect(stored.map((c) => [c.user.login, c.body])).toEqual([
        ["alice", "from alice"],
        ["escalation[bot]", "from the app"],
      ]);
      expect(stored[0]!.html_url).toBe(`${sim.url}/${REPO}/issues/1#issuecomment-${stored[0]!.id}`);
      expect(sim.issue(REPO, 1).comments).toBe(2);
    });

    it("rejects a body over 65536 characters with GitHub's 422 and accepts exactly 65536", async () => {
      const auth = await installationToken(sim);
      const tooLong = await call(sim, "POST", `/repos/${REPO}/issues/1/comments`, { auth, body: { body: "x".repeat(65_537) } });
      expect(tooLong.status).toBe(422);
      expect(tooLong.body).toMatchObject({
        message: "Validation Failed",
        errors: [{ resource: "IssueComment", code: "custom", field: "body", message: "body is too long (maximum is 65536 characters)" }],
      });
      expect(tooLong.body.documentation_url).toEqual(expect.any(String));
      const exact = await call(sim, "POST", `/repos/${REPO}/issues/1/comments`, { auth, body: { body: "x".repeat(65_536) } });
      expect(exact.status).toBe(201);
      expect(sim.comments(REPO, 1)).toHaveLength(1);
    });

    it("edits and deletes through REST with the matching webhooks, and only the author may edit", async () => {
      const created = sim.comment(REPO, 1, "alice", "first draft");
      const bob = sim.addUser("bob");
      const forbidden = await call(sim, "PATCH", `/repos/${REPO}/issues/comments/${created.id}`, { auth: `token ${bob.token}`, body: { body: "hijack" } });
      expect(forbidden.status).toBe(403);

      const edited = await call(sim, "PATCH", `/repos/${REPO}/issues/comments/${created.id}`, { auth: `token ${alice.token}`, body: { body: "final" } });
      expect(edited.body.body).toBe("final");
      const deleted = await call(sim, "DELETE", `/repos/${REPO}/issues/comments/${created.id}`, { auth: `token ${alice.token}` });
      expect(deleted.status).toBe(204);
      expect((await call(sim, "GET", `/repos/${REPO}/issues/comments/${created.id}`, { auth: `token ${alice.token}` })).status).toBe(404);

      await sim.whenDelivered();
      expect(receiver.events()).toEqual(["issue_comment.created", "issue_comment.edited", "issue_comment.deleted"]);
      expect(receiver.received[1]!.payload.changes).toEqual({ body: { from: "first draft" } });
      expect(receiver.received[2]!.payload.comment.body).toBe("final");
      expect(sim.comments(REPO, 1)).toEqual([]);
    });

    it("adds a reaction once per user and content: 201, then 200", async () => {
      const comment = sim.comment(REPO, 1, "alice", "answer");
      const auth = await installationToken(sim);
      const path = `/repos/${REPO}/issues/comments/${comment.id}/reactions`;
      expect((await call(sim, "POST", path, { auth, body: { content: "eyes" } })).status).toBe(201);
      expect((await call(sim, "POST", path, { auth, body: { content: "eyes" } })).status).toBe(200);
      expect((await call(sim, "POST", path, { auth, body: { content: "shrug" } })).status).toBe(422);
      const listed = await call(sim, "GET", path, { auth });
      expect(listed.body.map((r: { content: string; user: { login: string } }) => [r.content, r.user.login])).toEqual([["eyes", "escalation[bot]"]]);
      expect(sim.comments(REPO, 1)[0]!.reactions).toEqual([{ content: "eyes", user: "escalation[bot]" }]);
      const fetched = await call(sim, "GET", `/repos/${REPO}/issues/comments/${comment.id}`, { auth });
      expect(fetched.body.reactions).toMatchObject({ total_count: 1, eyes: 1, "+1": 0 });
    });
  });

  describe("webhooks", () => {
    it("delivers a signed issue_comment.created with GitHub's headers and payload", async () => {
      const posted = await call(sim, "POST", `/repos/${REPO}/issues/1/comments`, { auth: `token ${alice.token}`, body: { body: "the answer" } });
      await sim.whenDelivered();

      expect(receiver.received).toHaveLength(1);
      const [delivery] = receiver.received;
      const { headers, raw, payload } = delivery!;
      expect(await new Webhooks({ secret: SECRET }).verify(raw, String(headers["x-hub-signature-256"]))).toBe(true);
      // The legacy header GitHub still sends beside it; @octokit/webhooks neither makes nor checks it.
      expect(headers["x-hub-signature"]).toBe(`sha1=${createHmac("sha1", SECRET).update(raw).digest("hex")}`);
      expect(headers).toMatchObject({
        "content-type": "application/json",
        "user-agent": "GitHub-Hookshot/simulator",
        "x-github-event": "issue_comment",
        "x-github-hook-installation-target-type": "integration",
        "x-github-hook-installation-target-id": "1",
      });
      expect(headers["x-github-delivery"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(headers["x-github-hook-id"]).toMatch(/^\d+$/);

      expect(payload.action).toBe("created");
      expect(payload.comment).toMatchObject({
        id: posted.body.id,
        body: "the answer",
        user: { login: "alice", type: "User", site_admin: false },
        author_association: "NONE",
        issue_url: `${sim.apiUrl}/repos/${REPO}/issues/1`,
      });
      expect(payload.comment.node_id).toEqual(expect.any(String));
      expect(payload.issue).toMatchObject({
        number: 1,
        title: "Agent needs help",
        state: "open",
        comments: 1,
        user: { login: "escalation[bot]", type: "Bot" },
      });
      expect(payload.issue).not.toHaveProperty("pull_request");
      expect(payload.repository).toMatchObject({ full_name: REPO, name: "widgets", private: false, owner: { login: "acme" }, default_branch: "main" });
      expect(payload.sender.login).toBe("alice");
      expect(payload.installation).toEqual({ id: 1, node_id: expect.any(String) });

      expect(sim.deliveries).toEqual([
        {
          id: headers["x-github-delivery"],
          event: "issue_comment",
          action: "created",
          status: 200,
          ms: expect.any(Number),
          at: expect.any(Number),
          attempt: 1,
        },
      ]);
    });

    it("is verified by Probot, whose handler can answer with the installation's token", async () => {
      const probot = new Probot({ appId: sim.appId, privateKey: sim.privateKey, secret: SECRET, baseUrl: sim.apiUrl, logLevel: "fatal" });
      await probot.ready();
      probot.on("issues.closed", async (context) => {
        await context.octokit.rest.issues.createComment(context.issue({ body: `closed by ${context.payload.sender.login}` }));
      });
      sim.setPermission(REPO, "alice", "triage");
      sim.closeIssue(REPO, 1, "alice");
      await sim.whenDelivered();
      const { headers, raw } = receiver.received[0]!;
      await probot.webhooks.verifyAndReceive({
        id: String(headers["x-github-delivery"]),
        name: "issues",
        payload: raw,
        signature: String(headers["x-hub-signature-256"]),
      });
      expect(sim.comments(REPO, 1).map((c) => [c.user.login, c.body])).toEqual([["escalation[bot]", "closed by alice"]]);
      await expect(probot.webhooks.verifyAndReceive({ id: "x", name: "issues", payload: raw, signature: `sha256=${"0".repeat(64)}` })).rejects.toThrow();
    });

    it("loses the next deliveries on request: never sent, listed as lost, redeliverable", async () => {
      sim.loseDeliveries(1);
      sim.comment(REPO, 1, "alice", "lost");
      sim.comment(REPO, 1, "alice", "sent");
      await sim.whenDelivered();
      expect(receiver.received.map((r) => r.payload.comment.body)).toEqual(["sent"]);
      expect(sim.lostDeliveries.map((d) => `${d.event}.${d.action}`)).toEqual(["issue_comment.created"]);
      expect(await sim.redeliver(sim.lostDeliveries[0]!.id)).toBe(200);
      expect(receiver.received.map((r) => r.payload.comment.body)).toEqual(["sent", "lost"]);
    });

    it("redeliver resends the same body under the same delivery id", async () => {
      await receiver.close();
      receiver = await startReceiver([500]);
      sim.setWebhookUrl(receiver.url);
      sim.comment(REPO, 1, "alice", "hello");
      await sim.whenDelivered();
      expect(sim.deliveries.map((d) => d.status)).toEqual([500]);

      const id = sim.deliveries[0]!.id;
      expect(await sim.redeliver(id)).toBe(200);
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers["x-github-delivery"]).toBe(id);
      expect(receiver.received[1]!.raw).toBe(receiver.received[0]!.raw);
      expect(sim.deliveries.map((d) => [d.id, d.status, d.attempt])).toEqual([
        [id, 500, 1],
        [id, 200, 2],
      ]);
    });

    it("records an unreachable receiver as an error without retrying", async () => {
      await receiver.close();
      sim.comment(REPO, 1, "alice", "into the void");
      await sim.whenDelivered();
      expect(sim.deliveries.map((d) => [d.event, d.status, d.attempt])).toEqual([["issue_comment", "error", 1]]);
    });

    it("a push to a pull request delivers pull_request.synchronize with the new head; the issues API marks it a pull request", async () => {
      sim.setPermission(REPO, "alice", "write");
      const pr = sim.createPullRequest(REPO, { title: "Faster lookups", author: "alice" });
      await sim.whenDelivered();
      receiver.received.length = 0;
      sim.pushCommit(REPO, pr.number, "alice");
      await sim.whenDelivered();
      expect(receiver.events()).toEqual(["pull_request.synchronize"]);
      const { payload } = receiver.received[0]!;
      expect(payload).toMatchObject({
        number: pr.number,
        pull_request: { number: pr.number, title: "Faster lookups", state: "open", head: { sha: payload.after } },
        sender: { login: "alice" },
      });
      expect(payload.after).toMatch(/^[0-9a-f]{40}$/);
      expect(payload.before).not.toBe(payload.after);
      const listed = await call(sim, "GET", `/repos/${REPO}/issues/${pr.number}`, { auth: `token ${alice.token}` });
      expect(listed.body.pull_request).toMatchObject({ html_url: expect.stringContaining(`/pull/${pr.number}`) });
      expect(() => sim.pushCommit(REPO, 1, "alice")).toThrow();
    });

    it("a pull request's own events are pull_request.*, never issues.*; its reviews and line comments are delivered and listed", async () => {
      sim.setPermission(REPO, "alice", "write");
      sim.addUser("bob");
      sim.setPermission(REPO, "bob", "read");
      const pr = sim.createPullRequest(REPO, { title: "Faster lookups", author: "alice" });
      sim.addLabels(REPO, pr.number, "alice", ["agent"]);
      sim.removeLabel(REPO, pr.number, "alice", "agent");
      sim.closeIssue(REPO, pr.number, "alice");
      sim.reopenIssue(REPO, pr.number, "alice");
      sim.comment(REPO, pr.number, "bob", "in the conversation");
      const review = sim.submitReview(REPO, pr.number, "bob", { body: "Use SQLite." });
      const line = sim.reviewComment(REPO, pr.number, "bob", { body: "Why here?", path: "src/db.ts", line: 12 });
      await sim.whenDelivered();
      expect(receiver.events()).toEqual([
        "pull_request.opened",
        "pull_request.labeled",
        "pull_request.unlabeled",
        "pull_request.closed",
        "pull_request.reopened",
        "issue_comment.created",
        "pull_request_review.submitted",
        "pull_request_review_comment.created",
        "pull_request_review.submitted",
      ]);
      const [, labeled, , closed] = receiver.received.map((r) => r.payload);
      expect(labeled).toMatchObject({ number: pr.number, label: { name: "agent" }, pull_request: { number: pr.number, labels: [{ name: "agent" }] } });
      expect(labeled).not.toHaveProperty("issue");
      expect(closed).toMatchObject({ number: pr.number, pull_request: { state: "closed" } });
      const submitted = receiver.received[6]!.payload;
      expect(submitted.review).toMatchObject({
        id: review.id,
        body: "Use SQLite.",
        state: "commented",
        user: { login: "bob" },
        html_url: expect.stringContaining(`#pullrequestreview-${review.id}`),
      });
      const onLine = receiver.received[7]!.payload;
      expect(onLine.comment).toMatchObject({
        id: line.id,
        pull_request_review_id: line.reviewId,
        path: "src/db.ts",
        line: 12,
        side: "RIGHT",
        body: "Why here?",
      });
      expect(receiver.received[8]!.payload.review).toMatchObject({ id: line.reviewId, body: null });

      const auth = await installationToken(sim);
      const reviews = await call(sim, "GET", `/repos/${REPO}/pulls/${pr.number}/reviews?per_page=1`, { auth });
      expect(reviews.body).toEqual([expect.objectContaining({ id: review.id, body: "Use SQLite.", state: "COMMENTED" })]);
      expect(reviews.headers.get("link")).toContain('rel="next"');
      const comments = await call(sim, "GET", `/repos/${REPO}/pulls/${pr.number}/comments`, { auth });
      expect(comments.body).toEqual([expect.objectContaining({ id: line.id, path: "src/db.ts", line: 12 })]);
      expect((await call(sim, "GET", `/repos/${REPO}/pulls/1/reviews`, { auth })).status).toBe(404); // issue #1 is not a pull request
      const narrowed = await installationToken(sim, { permissions: { issues: "write" } });
      expect((await call(sim, "GET", `/repos/${REPO}/pulls/${pr.number}/reviews`, { auth: narrowed })).status).toBe(403);
      expect(() => sim.submitReview(REPO, pr.number, "bob", { event: "COMMENT" })).toThrow(); // a comment needs a body
      expect(() => sim.submitReview(REPO, pr.number, "alice", { event: "APPROVE" })).toThrow(); // not one's own
    });

    it("queues while paused and flushes in order when set live", async () => {
      sim.setPermission(REPO, "alice", "triage");
      sim.setWebhookDelivery("paused");
      const comment = sim.comment(REPO, 1, "alice", "one");
      sim.editComment(REPO, comment.id, "alice", "two");
      sim.addLabels(REPO, 1, "alice", ["answered"]);
      await call(sim, "PATCH", `/repos/${REPO}/issues/1`, { auth: `token ${alice.token}`, body: { state: "closed" } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(receiver.received).toHaveLength(0);
      expect(sim.deliveries).toHaveLength(0);

      sim.setWebhookDelivery("live");
      await sim.whenDelivered();
      expect(receiver.events()).toEqual(["issue_comment.created", "issue_comment.edited", "issues.labeled", "issues.closed"]);
      expect(sim.deliveries.map((d) => d.action)).toEqual(["created", "edited", "labeled", "closed"]);
    });

    it("sends nothing while no webhook URL is set", async () => {
      sim.setWebhookUrl(undefined);
      sim.comment(REPO, 1, "alice", "unheard");
      await sim.whenDelivered();
      expect(sim.deliveries).toEqual([]);
      expect(receiver.received).toEqual([]);
    });
  });

  describe("labels", () => {
    it("adds and removes labels over REST with one webhook per change", async () => {
      const carol = sim.addUser("carol");
      sim.setPermission(REPO, "carol", "triage");
      const auth = `token ${carol.token}`;

      const added = await call(sim, "POST", `/repos/${REPO}/issues/1/labels`, { auth, body: { labels: ["waiting", "agent"] } });
      expect(added.status).toBe(200);
      expect(added.body.map((l: { name: string }) => l.name)).toEqual(["waiting", "agent"]);
      const again = await call(sim, "POST", `/repos/${REPO}/issues/1/labels`, { auth, body: ["waiting"] });
      expect(again.body).toHaveLength(2);

      const removed = await call(sim, "DELETE", `/repos/${REPO}/issues/1/labels/waiting`, { auth });
      expect(removed.body.map((l: { name: string }) => l.name)).toEqual(["agent"]);
      const absent = await call(sim, "DELETE", `/repos/${REPO}/issues/1/labels/waiting`, { auth });
      expect(absent).toMatchObject({ status: 404, body: { message: "Label does not exist" } });

      const replaced = await call(sim, "PUT", `/repos/${REPO}/issues/1/labels`, { auth, body: { labels: ["done"] } });
      expect(replaced.body.map((l: { name: string }) => l.name)).toEqual(["done"]);
      expect(sim.issue(REPO, 1).labels).toEqual(["done"]);

      await sim.whenDelivered();
      expect(receiver.received.map((r) => `${r.payload.action}:${r.payload.label.name}`)).toEqual([
        "labeled:waiting",
        "labeled:agent",
        "unlabeled:waiting",
        "unlabeled:agent",
        "labeled:done",
      ]);
      expect(receiver.received[0]!.payload.label).toMatchObject({ name: "waiting", color: expect.any(String), default: false, node_id: expect.any(String) });
      expect(receiver.received[0]!.payload.sender.login).toBe("carol");
    });

    it("refuses label changes from a user below triage and emits nothing", async () => {
      const denied = await call(sim, "POST", `/repos/${REPO}/issues/1/labels`, { auth: `token ${alice.token}`, body: { labels: ["x"] } });
      expect(denied.status).toBe(403);
      expect(() => sim.addLabels(REPO, 1, "alice", ["x"])).toThrow(/triage/);
      await sim.whenDelivered();
      expect(receiver.received).toHaveLength(0);
      expect(sim.issue(REPO, 1).labels).toEqual([]);
    });

    it("the bot's label methods go through the same path and emit the same webhooks", async () => {
      sim.addLabels(REPO, 1, sim.botLogin, ["escalated"]);
      sim.removeLabel(REPO, 1, sim.botLogin, "escalated");
      await sim.whenDelivered();
      expect(receiver.events()).toEqual(["issues.labeled", "issues.unlabeled"]);
      expect(receiver.received[0]!.payload.sender).toMatchObject({ login: "escalation[bot]", type: "Bot" });
      expect(receiver.received[0]!.payload.issue.labels.map((l: { name: string }) => l.name)).toEqual(["escalated"]);
    });
  });

  describe("issues", () => {
    it("closes and reopens over REST and as a person, emitting closed and reopened", async () => {
      const closed = await call(sim, "PATCH", `/repos/${REPO}/issues/1`, { auth: await installationToken(sim), body: { state: "closed" } });
      expect(closed.body).toMatchObject({ state: "closed", state_reason: "completed", closed_at: expect.any(String) });
      sim.setPermission(REPO, "alice", "triage");
      sim.reopenIssue(REPO, 1, "alice");
      expect(sim.issue(REPO, 1)).toMatchObject({ state: "open", state_reason: "reopened", closed_at: null });
      await sim.whenDelivered();
      expect(receiver.events()).toEqual(["issues.closed", "issues.reopened"]);
      expect(receiver.received[1]!.payload.sender.login).toBe("alice");
    });

    it("lists issues filtered by state and labels, newest first", async () => {
      sim.createIssue(REPO, { title: "second", author: sim.botLogin, labels: ["agent"] });
      sim.createIssue(REPO, { title: "third", author: sim.botLogin, labels: ["agent", "waiting"] });
      sim.closeIssue(REPO, 3, sim.botLogin);
      const auth = `token ${alice.token}`;
      const open = await call(sim, "GET", `/repos/${REPO}/issues`, { auth });
      expect(open.body.map((i: { number: number }) => i.number)).toEqual([2, 1]);
      const all = await call(sim, "GET", `/repos/${REPO}/issues?state=all&labels=agent,waiting`, { auth });
      expect(all.body.map((i: { number: number }) => i.number)).toEqual([3]);

      await sim.whenDelivered();
      expect(receiver.events()).toEqual(["issues.opened", "issues.labeled", "issues.opened", "issues.labeled", "issues.labeled", "issues.closed"]);
      expect(receiver.received[2]!.payload.issue.labels.map((l: { name: string }) => l.name)).toEqual(["agent", "waiting"]);
    });

    it("drops labels on a new issue from a user without push access, as GitHub does", async () => {
      const issue = sim.createIssue(REPO, { title: "from a reader", author: "alice", labels: ["agent"] });
      expect(issue.labels).toEqual([]);
      await sim.whenDelivered();
      expect(receiver.events()).toEqual(["issues.opened"]);
      expect(receiver.received[0]!.payload.issue.user.login).toBe("alice");
    });
  });

  describe("pagination", () => {
    it("paginates comments with GitHub's Link header", async () => {
      for (let i = 1; i <= 5; i += 1) sim.comment(REPO, 1, "alice", `comment ${i}`);
      const auth = `token ${alice.token}`;
      const first = await call(sim, "GET", `/repos/${REPO}/issues/1/comments?per_page=2`, { auth });
      expect(first.body.map((c: { body: string }) => c.body)).toEqual(["comment 1", "comment 2"]);
      const base = `${sim.apiUrl}/repos/${REPO}/issues/1/comments?per_page=2`;
      expect(first.headers.get("link")).toBe(`<${base}&page=2>; rel="next", <${base}&page=3>; rel="last"`);

      const last = await call(sim, "GET", `/repos/${REPO}/issues/1/comments?per_page=2&page=3`, { auth });
      expect(last.body.map((c: { body: string }) => c.body)).toEqual(["comment 5"]);
      expect(last.headers.get("link")).toBe(`<${base}&page=2>; rel="prev", <${base}&page=1>; rel="first"`);

      const single = await call(sim, "GET", `/repos/${REPO}/issues/1/comments`, { auth });
      expect(single.body).toHaveLength(5);
      expect(single.headers.get("link")).toBeNull();

      const future = new Date(Date.now() + 60_000).toISOString();
      const since = await call(sim, "GET", `/repos/${REPO}/issues/1/comments?since=${future}`, { auth });
      expect(since.body).toEqual([]);
    });

    it("paginates issues, which Octokit's paginate follows to the end", async () => {
      for (let i = 2; i <= 7; i += 1) sim.createIssue(REPO, { title: `issue ${i}`, author: sim.botLogin });
      const page = await call(sim, "GET", `/repos/${REPO}/issues?per_page=3&page=2`, { auth: `token ${alice.token}` });
      expect(page.body.map((i: { number: number }) => i.number)).toEqual([4, 3, 2]);
      expect(page.headers.get("link")).toContain('rel="next"');
      expect(page.headers.get("link")).toContain('rel="prev"');

      const probot = new Probot({ appId: sim.appId, privateKey: sim.privateKey, secret: SECRET, baseUrl: sim.apiUrl, logLevel: "fatal" });
      const octokit = await probot.auth(1);
      const all = await octokit.paginate(octokit.rest.issues.listForRepo, { owner: "acme", repo: "widgets", per_page: 3 });
      expect(all.map((i) => i.number)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    });
  });

  describe("permissions, teams and contents", () => {
    it("maps collaborator roles to GitHub's legacy permission field", async () => {
      const auth = await installationToken(sim);
      const roles = ["admin", "maintain", "write", "triage", "read"] as const;
      for (const role of roles) sim.addUser(`u-${role}`);
      for (const role of roles) sim.setPermission(REPO, `u-${role}`, role);
      const results: Array<[string, string, string]> = [];
      for (const role of roles) {
        const r = await call(sim, "GET", `/repos/${REPO}/collaborators/u-${role}/permission`, { auth });
        results.push([role, r.body.permission, r.body.role_name]);
      }
      expect(results).toEqual([
        ["admin", "admin", "admin"],
        ["maintain", "write", "maintain"],
        ["write", "write", "write"],
        ["triage", "read", "triage"],
        ["read", "read", "read"],
      ]);

      const unset = await call(sim, "GET", `/repos/${REPO}/collaborators/alice/permission`, { auth });
      expect(unset.body).toMatchObject({ permission: "read", user: { login: "alice" } });
      sim.addRepo("acme/secret", { private: true });
      const onPrivate = await call(sim, "GET", "/repos/acme/secret/collaborators/alice/permission", { auth });
      expect(onPrivate.body.permission).toBe("none");
      const unknown = await call(sim, "GET", `/repos/${REPO}/collaborators/nobody/permission`, { auth });
      expect(unknown.status).toBe(404);
    });

    it("hides a private repository from users without access", async () => {
      sim.addRepo("acme/secret", { private: true });
      sim.createIssue("acme/secret", { title: "hidden", author: sim.botLogin });
      const denied = await call(sim, "GET", "/repos/acme/secret/issues/1", { auth: `token ${alice.token}` });
      expect(denied.status).toBe(404);
      sim.setPermission("acme/secret", "alice", "read");
      const allowed = await call(sim, "GET", "/repos/acme/secret/issues/1", { auth: `token ${alice.token}` });
      expect(allowed.body.title).toBe("hidden");
    });

    it("answers team membership with 200 active or 404", async () => {
      sim.addTeamMember("acme", "maintainers", "alice");
      const auth = await installationToken(sim);
      const member = await call(sim, "GET", "/orgs/acme/teams/maintainers/memberships/alice", { auth });
      expect(member).toMatchObject({ status: 200, body: { state: "active", role: "member" } });
      sim.addUser("bob");
      expect((await call(sim, "GET", "/orgs/acme/teams/maintainers/memberships/bob", { auth })).status).toBe(404);
      expect((await call(sim, "GET", "/orgs/acme/teams/other/memberships/alice", { auth })).status).toBe(404);

      const comment = sim.comment(REPO, 1, "alice", "as a member");
      const fetched = await call(sim, "GET", `/repos/${REPO}/issues/comments/${comment.id}`, { auth });
      expect(fetched.body.author_association).toBe("MEMBER");
    });

    it("serves files as base64 JSON or raw, and Probot's config loader reads them", async () => {
      sim.setFile(REPO, ".github/escalation.yml", "timeout: 2h\n");
      const auth = await installationToken(sim);
      const file = await call(sim, "GET", `/repos/${REPO}/contents/.github/escalation.yml`, { auth });
      expect(file.body).toMatchObject({ type: "file", encoding: "base64", name: "escalation.yml", path: ".github/escalation.yml" });
      expect(Buffer.from(file.body.content, "base64").toString()).toBe("timeout: 2h\n");
      expect(file.body.sha).toMatch(/^[0-9a-f]{40}$/);
      const raw = await call(sim, "GET", `/repos/${REPO}/contents/.github/escalation.yml`, { auth, accept: "application/vnd.github.v3.raw" });
      expect(raw.body).toBe("timeout: 2h\n");
      expect((await call(sim, "GET", "/repos/acme/.github/contents/.github/escalation.yml", { auth })).status).toBe(404);

      const probot = new Probot({ appId: sim.appId, privateKey: sim.privateKey, secret: SECRET, baseUrl: sim.apiUrl, logLevel: "fatal" });
      const octokit = await probot.auth(1);
      const { config } = await octokit.config.get({ owner: "acme", repo: "widgets", path: ".github/escalation.yml" });
      expect(config).toEqual({ timeout: "2h" });
      const { config: none } = await octokit.config.get({ owner: "acme", repo: "widgets", path: ".github/absent.yml" });
      expect(none).toEqual({});
    });
  });

  describe("HTTP surface", () => {
    it("sends rate-limit and request-id headers on every response, errors included", async () => {
      for (const result of [
        await call(sim, "GET", `/repos/${REPO}`, { auth: `token ${alice.token}` }),
        await call(sim, "GET", "/nope", { auth: `token ${alice.token}` }),
        await call(sim, "GET", `/repos/${REPO}`),
      ]) {
        for (const header of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-github-request-id"]) {
          expect(result.headers.get(header), header).toBeTruthy();
        }
      }
      const notFound = await call(sim, "GET", "/nope", { auth: `token ${alice.token}` });
      expect(notFound).toMatchObject({ status: 404, body: { message: "Not Found" } });
      const a = await call(sim, "GET", `/repos/${REPO}`, { auth: `token ${alice.token}` });
      const b = await call(sim, "GET", `/repos/${REPO}`, { auth: `token ${alice.token}` });
      expect(Number(b.headers.get("x-ratelimit-remaining"))).toBe(Number(a.headers.get("x-ratelimit-remaining")) - 1);
    });

    it("counts an installation's budget down across its tokens, per resource, as GitHub does; the remainder is readable", async () => {
      const first = await installationToken(sim);
      const second = await installationToken(sim);
      const a = await call(sim, "GET", `/repos/${REPO}/issues`, { auth: first });
      const b = await call(sim, "GET", `/repos/${REPO}/issues`, { auth: second });
      expect(a.headers.get("x-ratelimit-limit")).toBe("5000");
      expect(a.headers.get("x-ratelimit-resource")).toBe("core");
      expect(Number(b.headers.get("x-ratelimit-remaining"))).toBe(Number(a.headers.get("x-ratelimit-remaining")) - 1);
      expect(Number(b.headers.get("x-ratelimit-used"))).toBe(5000 - Number(b.headers.get("x-ratelimit-remaining")));
      const search = await call(sim, "GET", `/search/issues?q=${encodeURIComponent("org:acme updated:>=2000-01-01")}`, { auth: first });
      expect(search.status).toBe(200);
      expect(search.headers.get("x-ratelimit-resource")).toBe("search");
      expect(search.headers.get("x-ratelimit-limit")).toBe("30");
      expect(sim.rateLimit(1)).toMatchObject({ limit: 5000, remaining: Number(b.headers.get("x-ratelimit-remaining")) });
      expect(sim.rateLimit(1, "search")).toMatchObject({ limit: 30, remaining: 29 });
    });

    it("searches issues by owner and update time, in the repositories the caller may read, and seeds history without webhooks", async () => {
      sim.addRepo("acme/quiet");
      const history = { title: "Old", author: "alice", labels: ["triage"], comments: [{ author: "alice", body: "hi" }], at: "2020-01-01T00:00:00Z" };
      const [old] = sim.seedIssues("acme/quiet", [history]);
      expect(old).toMatchObject({ updated_at: "2020-01-01T00:00:00Z", labels: ["triage"], comments: 1 });
      const fresh = sim.createIssue(REPO, { title: "Fresh", author: "alice" });
      const auth = await installationToken(sim);
      interface Found {
        total_count: number;
        items: Array<{ number: number; repository_url: string }>;
      }
      const search = async (q: string) => (await call(sim, "GET", `/search/issues?q=${encodeURIComponent(q)}&per_page=100`, { auth })).body as Found;
      const recent = await search("org:acme updated:>=2021-01-01T00:00:00Z");
      // Newest first: the fresh issue, then the one the setup opened; last year's seeded one is not recent.
      expect(recent.items.map((i) => [i.repository_url.split("/").slice(-2).join("/"), i.number])).toEqual([
        [REPO, fresh.number],
        [REPO, 1],
      ]);
      expect((await search("user:acme updated:>=2019-01-01")).total_count).toBe(3);
      expect((await call(sim, "GET", `/search/issues?q=${encodeURIComponent("org:acme bogus:1")}`, { auth })).status).toBe(422);
      await sim.whenDelivered();
      expect(receiver.events()).not.toContain("issues.labeled");
    });

    it("records every request with its route template and actor", async () => {
      const auth = await installationToken(sim);
      await call(sim, "POST", `/repos/${REPO}/issues/1/comments`, { auth, body: { body: "a" } });
      await call(sim, "POST", `/repos/${REPO}/issues/1/comments`, { auth, body: { body: "b" } });
      await call(sim, "GET", `/repos/${REPO}/issues/1/comments?per_page=1`, { auth: `token ${alice.token}` });
      await call(sim, "GET", "/unknown");
      expect(sim.calls.map((c) => [c.route, c.status, c.actor])).toEqual([
        ["POST /app/installations/{installation_id}/access_tokens", 201, "app:escalation"],
        ["POST /repos/{owner}/{repo}/issues/{issue_number}/comments", 201, "escalation[bot]"],
        ["POST /repos/{owner}/{repo}/issues/{issue_number}/comments", 201, "escalation[bot]"],
        ["GET /repos/{owner}/{repo}/issues/{issue_number}/comments", 200, "alice"],
        ["GET (unmatched)", 404, "anonymous"],
      ]);
      expect(sim.calls[3]!.path).toBe(`/repos/${REPO}/issues/1/comments?per_page=1`);
    });

    it("answers malformed JSON with 400", async () => {
      const response = await fetch(`${sim.apiUrl}/repos/${REPO}/issues/1/comments`, {
        method: "POST",
        headers: { authorization: `token ${alice.token}`, "content-type": "application/json" },
        body: "{not json",
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ message: "Problems parsing JSON" });
    });
  });
});
