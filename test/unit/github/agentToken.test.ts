import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubError } from "../../../src/errors.js";
import { agentTokenIssuer } from "../../../src/github/agentToken.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";

const PATH = `${V3}/app/installations/7/access_tokens`;
const JWT = /^bearer [\w-]+\.[\w-]+\.[\w-]+$/;
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe("agentTokenIssuer, against GitHub's installation access token API", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  it("asks with the App's JWT for a token narrowed to the repository and the configured permissions plus the spawn's", async () => {
    github.scope
      .post(PATH, { repositories: ["widgets"], permissions: { issues: "write", metadata: "read", contents: "write" } })
      .matchHeader("authorization", JWT)
      .reply(201, { token: "ghs_agent", expires_at: inMinutes(60), permissions: { issues: "write", metadata: "read", contents: "write" } });
    const issue = agentTokenIssuer(github.probot, { issues: "write", metadata: "read" });
    const token = await issue(7, "acme/widgets", { contents: "write" });
    expect(token).toEqual({ token: "ghs_agent", expiresAt: expect.any(Number) });
    expect(token.expiresAt - Date.now()).toBeGreaterThan(59 * 60_000);
  });

  it("reuses a token while it has 20 minutes left, per repository and permissions; a dying one is replaced", async () => {
    github.scope.post(PATH, { repositories: ["widgets"], permissions: { issues: "write" } }).reply(201, { token: "ghs_first", expires_at: inMinutes(60) });
    github.scope
      .post(PATH, { repositories: ["widgets"], permissions: { issues: "write", contents: "write" } })
      .reply(201, { token: "ghs_workspace", expires_at: inMinutes(10) });
    github.scope
      .post(PATH, { repositories: ["widgets"], permissions: { issues: "write", contents: "write" } })
      .reply(201, { token: "ghs_fresh", expires_at: inMinutes(60) });
    const issue = agentTokenIssuer(github.probot, { issues: "write" });
    expect((await issue(7, "acme/widgets")).token).toBe("ghs_first");
    expect((await issue(7, "ACME/Widgets")).token).toBe("ghs_first");
    expect((await issue(7, "acme/widgets", { contents: "write" })).token).toBe("ghs_workspace");
    expect((await issue(7, "acme/widgets", { contents: "write" })).token).toBe("ghs_fresh");
  });

  it.each([
    ["a permission the installation has not granted (422)", 422, { message: "The permissions requested are not granted to this installation." }, {}],
    ["a rate limit (403)", 403, { message: "API rate limit exceeded" }, rateLimited],
    ["an App not installed on the repository (404)", 404, { message: "Not Found" }, {}],
  ])("%s is a GitHubError with GitHub's status, naming the repository and the permissions asked", async (_name, status, body, headers) => {
    github.scope.post(PATH).reply(status, body, headers);
    const error = await agentTokenIssuer(github.probot, { issues: "write" })(7, "acme/widgets", { contents: "write" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({
      status,
      message: expect.stringContaining(
        `Could not create the agent's token for acme/widgets (installation 7) with issues:write,contents:write: ${body.message}`,
      ),
    });
  });
});
