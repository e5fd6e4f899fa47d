import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InstallationOctokit } from "../../../src/github/octokit.js";
import { reviewReplies } from "../../../src/reconcile/reviewReplies.js";
import { API, V3, nockGitHub, type GitHubApi } from "../../support/nockGitHub.js";

const REVIEWS = `${V3}/repos/acme/widgets/pulls/5/reviews`;
const COMMENTS = `${V3}/repos/acme/widgets/pulls/5/comments`;
const alice = { login: "alice", type: "User" };
const review = (id: number, state: string, body: string | null, submitted_at: string | null = "2026-12-04T09:00:00Z") => ({
  id,
  state,
  body,
  submitted_at,
  html_url: `https://github.example/acme/widgets/pull/5#pullrequestreview-${id}`,
  user: alice,
});
const lineComment = (id: number, over: Record<string, unknown> = {}) => ({
  id,
  body: "Use SQLite here",
  html_url: `https://github.example/acme/widgets/pull/5#discussion_r${id}`,
  created_at: "2026-12-04T09:01:00Z",
  updated_at: "2026-12-04T09:02:00Z",
  node_id: `PRRC_${id}`,
  path: "src/db.ts",
  line: 12,
  side: "RIGHT",
  user: alice,
  ...over,
});

describe("reviewReplies, against GitHub's pull request reviews and review comments", () => {
  let github: GitHubApi;
  let octokit: InstallationOctokit;
  beforeEach(async () => {
    github = nockGitHub();
    octokit = await github.installation().octokit();
  });
  afterEach(() => github.done());

  it("reads every page of both lists and keeps the submitted reviews with a body and every line comment, under their reply ids", async () => {
    github.scope
      .get(REVIEWS)
      .query({ per_page: "100" })
      .reply(200, [review(1, "APPROVED", ""), review(2, "PENDING", "a draft only its author sees", null)], {
        link: `<${API}${REVIEWS}?per_page=100&page=2>; rel="next"`,
      });
    github.scope
      .get(REVIEWS)
      .query({ per_page: "100", page: "2" })
      .reply(200, [review(3, "COMMENTED", "SQLite, keep it embedded")]);
    github.scope
      .get(COMMENTS)
      .query({ per_page: "100" })
      .reply(200, [lineComment(10), lineComment(11, { line: null, side: "LEFT", node_id: undefined })]);
    expect(await reviewReplies(octokit, "acme", "widgets", 5)).toEqual([
      {
        id: -6,
        body: "SQLite, keep it embedded",
        html_url: review(3, "", "").html_url,
        created_at: "2026-12-04T09:00:00Z",
        user: alice,
        in: { kind: "review" },
      },
      {
        id: -21,
        body: "Use SQLite here",
        html_url: lineComment(10).html_url,
        created_at: "2026-12-04T09:01:00Z",
        updated_at: "2026-12-04T09:02:00Z",
        node_id: "PRRC_10",
        user: alice,
        in: { kind: "reviewComment", path: "src/db.ts", line: 12, side: "RIGHT" },
      },
      {
        id: -23,
        body: "Use SQLite here",
        html_url: lineComment(11).html_url,
        created_at: "2026-12-04T09:01:00Z",
        updated_at: "2026-12-04T09:02:00Z",
        user: alice,
        in: { kind: "reviewComment", path: "src/db.ts", side: "LEFT" },
      },
    ]);
  });

  it("a pull request the app may not read (404) is thrown", async () => {
    github.scope.get(REVIEWS).query(true).reply(404, { message: "Not Found" });
    await expect(reviewReplies(octokit, "acme", "widgets", 5)).rejects.toMatchObject({ status: 404 });
  });
});
