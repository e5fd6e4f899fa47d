import { afterEach, describe, expect, it } from "vitest";
import { graphqlReadsClient } from "../../../src/github/graphqlReads.js";
import { nockGitHub, V3, type GitHubApi } from "../../support/nockGitHub.js";

const ID = 7;
const TOKEN = `token ghs_installation${ID}`;
const QUERY = "query { viewer { login } }";

describe("an installation's GraphQL reads", () => {
  let github: GitHubApi | undefined;
  afterEach(() => github?.done());

  it("authenticate as the installation, and wait for nothing its writes did (Octokit spaces an installation's writes a second apart, GraphQL counted as one)", async () => {
    github = nockGitHub({ throttle: true });
    github.scope
      .post(`${V3}/app/installations/${ID}/access_tokens`)
      .reply(201, { token: `ghs_installation${ID}`, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    github.scope.post(`${V3}/repos/acme/widgets/issues/comments/1/reactions`).times(2).matchHeader("authorization", TOKEN).reply(201, {});
    github.scope
      .post("/api/graphql")
      .times(2)
      .matchHeader("authorization", TOKEN)
      .reply(200, { data: { viewer: { login: "escalation[bot]" } } });
    const writes = await github.probot.auth(ID);
    const reads = await graphqlReadsClient(github.probot, ID);
    const react = () =>
      writes.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", { owner: "acme", repo: "widgets", comment_id: 1, content: "rocket" });
    const timed = async (query: () => Promise<unknown>) => {
      const started = Date.now();
      await query();
      return Date.now() - started;
    };

    // Through the installation's own client a query waits out the second after its write.
    await react();
    expect(await timed(() => writes.graphql(QUERY))).toBeGreaterThanOrEqual(800);
    // Through the reads client it does not: it is paced apart.
    await react();
    expect(await timed(() => reads.graphql(QUERY))).toBeLessThan(700);
  });
});
