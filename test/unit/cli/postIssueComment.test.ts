import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubError } from "../../../src/errors.js";
import { postIssueComment, type GitHubTarget } from "../../../src/cli/github.js";
import { EnvironmentError } from "../../../src/cli/usage.js";
import { API, V3, nockGitHub, type GitHubApi } from "../../support/nockGitHub.js";

/** `escalate ask` and `escalate answer` post their comment with the token they are given, no proxy set. */
describe("postIssueComment, against GitHub's issue comments API", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  const target: GitHubTarget = { token: "ghs_agent", apiUrl: `${API}${V3}/`, proxy: {} };
  const PATH = `${V3}/repos/acme/widgets/issues/12/comments`;

  it("posts the body with the token and returns the comment's URL", async () => {
    github.scope
      .post(PATH, { body: "Which database?" })
      .matchHeader("authorization", "token ghs_agent")
      .reply(201, { id: 9001, html_url: "https://github.example/acme/widgets/issues/12#issuecomment-9001" });
    expect(await postIssueComment(target, "acme/widgets", 12, "Which database?", "no token")).toBe(
      "https://github.example/acme/widgets/issues/12#issuecomment-9001",
    );
  });

  it("GitHub's refusal is a GitHubError with its status and message", async () => {
    github.scope.post(PATH).reply(403, { message: "Resource not accessible by integration" });
    const error = await postIssueComment(target, "acme/widgets", 12, "x", "no token").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ status: 403, message: "GitHub refused the comment on acme/widgets#12 (HTTP 403): Resource not accessible by integration" });
  });

  it("no answer at all is a GitHubError without a status, saying GitHub could not be reached and why", async () => {
    github.scope.post(PATH).replyWithError({ code: "ECONNRESET", message: "socket hang up" });
    const error = await postIssueComment(target, "acme/widgets", 12, "x", "no token").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).status).toBeUndefined();
    expect((error as Error).message).toMatch(/^GitHub could not be reached to post the comment on acme\/widgets#12: /);
  });

  it("without a token asks nothing: an EnvironmentError naming GITHUB_TOKEN", async () => {
    const error = await postIssueComment({ ...target, token: undefined }, "acme/widgets", 12, "x", "Set GITHUB_TOKEN.").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error).toMatchObject({ message: "Set GITHUB_TOKEN.", variables: ["GITHUB_TOKEN"] });
  });
});
