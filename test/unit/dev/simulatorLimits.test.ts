import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubSimulator, SECONDARY_LIMIT_MESSAGE } from "../../../tools/simulator/index.js";

const REPO = "acme/widgets";

/** The simulator's own user token: a person's writes (the limit is per caller, as on GitHub). */
async function post(sim: GitHubSimulator, token: string, path: string, body: unknown) {
  const res = await fetch(`${sim.apiUrl}${path}`, {
    method: "POST",
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe("the simulator enforces GitHub's secondary limit on content creation", () => {
  let sim: GitHubSimulator;
  let token: string;
  let other: string;
  beforeEach(async () => {
    sim = await GitHubSimulator.start({ webhookSecret: "s" });
    sim.addRepo(REPO);
    token = sim.addUser("alice").token;
    other = sim.addUser("bob").token;
    sim.setPermission(REPO, "alice", "write");
    sim.setPermission(REPO, "bob", "write");
    sim.createIssue(REPO, { title: "t", author: "alice" });
  });
  afterEach(async () => {
    await sim.stop();
  });

  it("off by default: nothing is refused", async () => {
    for (let i = 0; i < 5; i++) expect((await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: `c${i}` })).status).toBe(201);
    expect(sim.contentWrites).toHaveLength(5);
  });

  it("past the per-minute budget: 403 with retry-after and GitHub's message; writes sent while told to wait are marked", async () => {
    sim.setContentLimits({ perMinute: 2, perHour: 100, retryAfterSeconds: 30 });
    expect((await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "a" })).status).toBe(201);
    expect((await post(sim, token, `/repos/${REPO}/issues/1/labels`, { labels: ["x"] })).status).toBe(200);
    const refused = await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "c" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(String(refused.body.message)).toMatch(
      /^You have exceeded a secondary rate limit\. Please wait a few minutes before you try again\. If you reach out to GitHub Support for help, please include the request ID [0-9A-F:]+\.$/,
    );
    expect(String(refused.body.message).startsWith(SECONDARY_LIMIT_MESSAGE)).toBe(true);
    expect(refused.body.documentation_url).toMatch(/secondary-rate-limits/);
    expect(sim.comments(REPO, 1).map((c) => c.body)).toEqual(["a"]);
    expect((await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "d" })).status).toBe(403);
    expect(sim.contentWrites.map((w) => [w.refused, w.whileLimited])).toEqual([
      [0, false],
      [0, false],
      [403, false],
      [403, true],
    ]);
    // Budgets are per caller.
    expect((await post(sim, other, `/repos/${REPO}/issues/1/comments`, { body: "e" })).status).toBe(201);
  });

  it("the per-hour budget, 429, and no retry-after when told so; windows may be short for tests", async () => {
    sim.setContentLimits({ perMinute: 100, perHour: 1, hourMs: 300, retryAfterSeconds: null, status: 429 });
    expect((await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "a" })).status).toBe(201);
    const refused = await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "b" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeNull();
  });

  it("a tripped limit refuses the next write once, for the time it says", async () => {
    sim.tripSecondaryLimit({ retryAfterSeconds: 1 });
    const refused = await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "a" });
    expect([refused.status, refused.headers.get("retry-after")]).toEqual([403, "1"]);
    await new Promise((r) => setTimeout(r, 1050));
    expect((await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "b" })).status).toBe(201);
  });

  it("lists an issue's label events with their actor, as GET …/issues/{n}/events", async () => {
    sim.addLabels(REPO, 1, "alice", ["awaiting-human"]);
    sim.removeLabel(REPO, 1, "bob", "awaiting-human");
    const res = await fetch(`${sim.apiUrl}/repos/${REPO}/issues/1/events`, { headers: { authorization: `token ${token}` } });
    const events = (await res.json()) as Array<{ event: string; label?: { name: string }; actor: { login: string }; created_at: string }>;
    expect(events.map((e) => [e.event, e.label?.name, e.actor.login])).toEqual([
      ["labeled", "awaiting-human", "alice"],
      ["unlabeled", "awaiting-human", "bob"],
    ]);
    expect(sim.issueEvents(REPO, 1).map((e) => e.event)).toEqual(["labeled", "unlabeled"]);
  });
});

describe("the simulator answers a burst of server errors on request", () => {
  it("the next N API requests, anyone's, get the status; the one after is served", async () => {
    const sim = await GitHubSimulator.start({ webhookSecret: "s" });
    try {
      sim.addRepo(REPO);
      const { token } = sim.addUser("alice");
      sim.setPermission(REPO, "alice", "write");
      sim.createIssue(REPO, { title: "t", author: "alice" });
      sim.failRequests(2, 503);
      const first = await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "a" });
      expect(first.status).toBe(503);
      expect(first.body.message).toBe("Service Unavailable");
      expect((await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "b" })).status).toBe(503);
      expect((await post(sim, token, `/repos/${REPO}/issues/1/comments`, { body: "c" })).status).toBe(201);
      expect(sim.comments(REPO, 1).map((c) => c.body)).toEqual(["c"]);
      expect(sim.calls.map((c) => c.status)).toEqual([503, 503, 201]);
    } finally {
      await sim.stop();
    }
  });
});
