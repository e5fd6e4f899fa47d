import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubError } from "../../../src/errors.js";
import { appIdentityLoader } from "../../../src/github/appIdentity.js";
import { V3, nockGitHub, type GitHubApi } from "../../support/nockGitHub.js";

describe("appIdentityLoader, against GET /app", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  it("asks once with the App's JWT and remembers the slug and the bot's login", async () => {
    github.scope
      .get(`${V3}/app`)
      .matchHeader("authorization", /^bearer [\w-]+\.[\w-]+\.[\w-]+$/)
      .reply(200, { id: 1, slug: "escalation", name: "Escalation" });
    const identity = appIdentityLoader(github.probot);
    expect(await identity()).toEqual({ slug: "escalation", botLogin: "escalation[bot]" });
    expect(await identity()).toEqual({ slug: "escalation", botLogin: "escalation[bot]" });
  });

  it("an answer without a slug is a GitHubError naming what to check", async () => {
    github.scope.get(`${V3}/app`).reply(200, { id: 1 });
    await expect(appIdentityLoader(github.probot)()).rejects.toThrow(new GitHubError("GET /app returned no slug; check APP_ID and PRIVATE_KEY."));
  });

  it("a refused JWT (401) is a GitHubError with GitHub's status, and the next call asks again", async () => {
    github.scope.get(`${V3}/app`).reply(401, { message: "A JSON web token could not be decoded" });
    github.scope.get(`${V3}/app`).reply(200, { id: 1, slug: "escalation" });
    const identity = appIdentityLoader(github.probot);
    const error = await identity().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({
      status: 401,
      message: expect.stringMatching(
        /^Could not read the App's identity \(GET \/app\): A JSON web token could not be decoded.*Check APP_ID, PRIVATE_KEY and GHE_HOST\./,
      ),
    });
    expect((await identity()).slug).toBe("escalation");
  });
});
