import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GitHubError } from "../../../src/errors.js";
import { tokenIssuer, agentTokenRevoker } from "../../../src/github/agentToken.js";
import { V3, nockGitHub, rateLimited, type GitHubApi } from "../../support/nockGitHub.js";

const PATH = `${V3}/app/installations/7/access_tokens`;
const JWT = /^bearer [\w-]+\.[\w-]+\.[\w-]+$/;
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe("tokenIssuer, against GitHub's installation access token API", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  it("asks with the App's JWT for a token narrowed to the repository and the configured permissions plus the spawn's", async () => {
    github.scope
      .post(PATH, { repositories: ["widgets"], permissions: { issues: "write", metadata: "read", contents: "write" } })
      .matchHeader("authorization", JWT)
      .reply(201, { token: "ghs_agent", expires_at: inMinutes(60), permissions: { issues: "write", metadata: "read", contents: "write" } });
    const { agentToken } = tokenIssuer(github.probot, { issues: "write", metadata: "read" });
    const token = await agentToken(7, "acme/widgets", { contents: "write" });
    expect(token).toEqual({ token: "ghs_agent", expiresAt: expect.any(Number) });
    expect(token.expiresAt - Date.now()).toBeGreaterThan(59 * 60_000);
  });

  it("issues a fresh token for each round, never one another round holds (each round revokes its own)", async () => {
    github.scope.post(PATH, { repositories: ["widgets"], permissions: { issues: "write" } }).reply(201, { token: "ghs_first", expires_at: inMinutes(60) });
    github.scope.post(PATH, { repositories: ["widgets"], permissions: { issues: "write" } }).reply(201, { token: "ghs_second", expires_at: inMinutes(60) });
    const { agentToken } = tokenIssuer(github.probot, { issues: "write" });
    expect((await agentToken(7, "acme/widgets")).token).toBe("ghs_first");
    expect((await agentToken(7, "acme/widgets")).token).toBe("ghs_second");
  });

  it("a round's extra permission never narrows a configured one; the app's own token asks exactly what it names", async () => {
    github.scope
      .post(PATH, { repositories: ["widgets"], permissions: { contents: "write", issues: "read" } })
      .reply(201, { token: "ghs_agent", expires_at: inMinutes(60) });
    github.scope.post(PATH, { repositories: ["widgets"], permissions: { contents: "write" } }).reply(201, { token: "ghs_app", expires_at: inMinutes(60) });
    const { agentToken, appToken } = tokenIssuer(github.probot, { contents: "write", issues: "read" });
    expect((await agentToken(7, "acme/widgets", { contents: "read" })).token).toBe("ghs_agent");
    expect((await appToken(7, "acme/widgets", { contents: "write" })).token).toBe("ghs_app");
  });

  it.each([
    ["a permission the installation has not granted (422)", 422, { message: "The permissions requested are not granted to this installation." }, {}],
    ["a rate limit (403)", 403, { message: "API rate limit exceeded" }, rateLimited],
    ["an App not installed on the repository (404)", 404, { message: "Not Found" }, {}],
  ])("%s is a GitHubError with GitHub's status, naming the repository and the permissions asked", async (_name, status, body, headers) => {
    github.scope.post(PATH).reply(status, body, headers);
    const error = await tokenIssuer(github.probot, { issues: "write" })
      .agentToken(7, "acme/widgets", { contents: "write" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({
      status,
      message: expect.stringContaining(`Could not create a round's token for acme/widgets (installation 7) with issues:write,contents:write: ${body.message}`),
    });
  });
});

describe("agentTokenRevoker, against GitHub's revoke-installation-token API", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());
  const quiet = () => ({ error: vi.fn() });

  it("sends DELETE /installation/token authenticated by the token itself", async () => {
    github.scope.delete(`${V3}/installation/token`).matchHeader("authorization", "token ghs_round").reply(204);
    const log = quiet();
    expect(await agentTokenRevoker(github.probot, log)(7, "ghs_round")).toBe(true);
    expect(log.error).not.toHaveBeenCalled();
  });

  it("takes a 401 as done: GitHub no longer knows the token", async () => {
    github.scope.delete(`${V3}/installation/token`).reply(401, { message: "Bad credentials" });
    expect(await agentTokenRevoker(github.probot, quiet())(7, "ghs_gone")).toBe(true);
  });

  it("retries a revocation that met a server error, as Octokit retries in production", async () => {
    github.done();
    github = nockGitHub({ retry: true });
    github.scope.delete(`${V3}/installation/token`).reply(502, { message: "Bad Gateway" });
    github.scope.delete(`${V3}/installation/token`).matchHeader("authorization", "token ghs_round").reply(204);
    const log = quiet();
    expect(await agentTokenRevoker(github.probot, log)(7, "ghs_round")).toBe(true);
    expect(log.error).not.toHaveBeenCalled();
  });

  it("logs a revocation GitHub refused and returns false, never throws: the round has ended", async () => {
    github.scope.delete(`${V3}/installation/token`).reply(500, { message: "Server Error" });
    const log = quiet();
    expect(await agentTokenRevoker(github.probot, log)(7, "ghs_round")).toBe(false);
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ installationId: 7, status: 500 }),
      expect.stringContaining("could not revoke the round's token"),
    );
  });
});
