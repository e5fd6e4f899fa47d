import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitHubSimulator } from "../../../tools/simulator/index.js";
import { RestConformance } from "../../support/github/restConformance.js";
import { RestDescription } from "../../support/github/restDescription.js";

const description = new RestDescription();
const check = (method: string, pathAndQuery: string, body?: unknown) => {
  const url = new URL(pathAndQuery, "http://x");
  return description.violations({ method, path: url.pathname, query: url.searchParams, body });
};

describe("GitHub's REST description as a check on requests", () => {
  it("accepts documented requests", () => {
    expect(check("POST", "/repos/acme/widgets/issues/7/comments", { body: "Hi" })).toEqual([]);
    expect(check("GET", "/repos/acme/widgets/issues/comments/12/reactions?content=rocket&per_page=100&page=2")).toEqual([]);
    expect(check("POST", "/repos/acme/widgets/issues/7/labels", { labels: ["agent"] })).toEqual([]);
    expect(check("DELETE", "/repos/acme/widgets/issues/7/labels/agent%3Arunning")).toEqual([]);
    expect(check("GET", "/repos/acme/widgets/contents/.github/escalation.yml")).toEqual([]);
    expect(check("GET", "/repos/acme/widgets/issues?state=all&labels=agent&sort=updated&direction=desc&since=2026-01-01T00:00:00Z&per_page=100")).toEqual([]);
  });

  it("reports an undocumented body field, naming it", () => {
    expect(check("POST", "/repos/acme/widgets/issues/7/comments", { body: "Hi", silent: true })).toEqual([
      "POST /repos/{owner}/{repo}/issues/{issue_number}/comments: undocumented body field body.silent",
    ]);
    expect(check("POST", "/app/installations/1/access_tokens", { repositories: ["widgets"], permissions: { issues: "write", wikis: "write" } })).toEqual([
      "POST /app/installations/{installation_id}/access_tokens: undocumented body field body.permissions.wikis",
    ]);
  });

  it("reports a body field of the wrong type or value", () => {
    expect(check("POST", "/repos/acme/widgets/issues/7/comments", { body: 5 })).toEqual([
      "POST /repos/{owner}/{repo}/issues/{issue_number}/comments: body.body must be string",
    ]);
    expect(check("PATCH", "/repos/acme/widgets/issues/7", { state: "resolved" })).toEqual([
      "PATCH /repos/{owner}/{repo}/issues/{issue_number}: body.state must be equal to one of the allowed values",
    ]);
  });

  it("reports an undocumented path, method or query parameter", () => {
    expect(check("GET", "/repos/acme/widgets/issues/7/answers")).toEqual(["GET /repos/acme/widgets/issues/7/answers: no such path in GitHub's REST API"]);
    expect(check("PUT", "/repos/acme/widgets/issues/comments/12")).toEqual([
      "PUT /repos/acme/widgets/issues/comments/12: /repos/{owner}/{repo}/issues/comments/{comment_id} has no PUT",
    ]);
    expect(check("GET", "/repos/acme/widgets/issues/7/labels?limit=100")).toEqual([
      'GET /repos/{owner}/{repo}/issues/{issue_number}/labels: undocumented query parameter "limit"',
    ]);
    expect(check("GET", "/repos/acme/widgets/issues/comments/12/reactions?content=party")).toHaveLength(1);
  });
});

describe("a simulator that holds its callers to the description", () => {
  const rest = new RestConformance();
  let sim: GitHubSimulator;
  beforeAll(async () => {
    sim = await GitHubSimulator.start({ webhookSecret: "s", inspect: rest.inspect });
    sim.addRepo("acme/widgets");
  });
  afterAll(() => sim.stop());

  it("records what an undocumented request did, and fails on it", async () => {
    const user = sim.addUser("alice");
    const send = (method: string, path: string, body?: unknown) =>
      fetch(`${sim.url}${path}`, {
        method,
        headers: { authorization: `token ${user.token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    await send("POST", "/api/v3/repos/acme/widgets/issues", { title: "Documented" });
    expect(rest.violations).toEqual([]);
    expect(() => rest.assertNone()).not.toThrow();

    await send("POST", "/api/v3/repos/acme/widgets/issues/1/comments", { body: "Hi", pinned: true });
    await send("GET", "/status");
    expect(rest.violations).toEqual([
      "POST /repos/{owner}/{repo}/issues/{issue_number}/comments: undocumented body field body.pinned",
      "GET /status: outside /api/v3, where GitHub Enterprise serves its REST API",
    ]);
    expect(() => rest.assertNone()).toThrow(/does not document:\n {2}- POST/);
  });
});
