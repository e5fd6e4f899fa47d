import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bodyForTask } from "../../../src/gates/issueBody.js";
import type { Services } from "../../../src/services/services.js";
import { issueFromGitHub } from "../../../src/round/once.js";
import { V3, nockGitHub, type GitHubApi } from "../../support/nockGitHub.js";

/** A round whose issue record Redis lost reads the issue from GitHub: whose words its body is comes from the GraphQL edit history. */
describe("issueFromGitHub, against GitHub's REST and GraphQL APIs", () => {
  let github: GitHubApi;
  beforeEach(() => (github = nockGitHub()));
  afterEach(() => github.done());

  const data = { installationId: 1, repo: "octo/demo", issue: 7, trigger: { type: "dispatch" as const, by: "alice" }, receivedAt: 0 };
  const rest = { title: "Add a cache", body: "Shown on GitHub", html_url: "https://github.com/octo/demo/issues/7", user: { login: "alice" }, node_id: "I_7" };
  const edit = (login: string, diff: string, editedAt: string) => ({ editor: { login }, diff, editedAt, deletedAt: null });
  const renamed = (login: string, type: string, from: string, to: string, at: string) => ({
    event: "renamed",
    actor: { login, type },
    rename: { from, to },
    created_at: at,
  });
  const asShown = { id: "I_7", author: { login: "alice" }, editor: null, lastEditedAt: null, userContentEdits: { totalCount: 0, nodes: [] } };

  /** The issue, its body's edit history (GraphQL, where GitHub Enterprise serves it) and its events, as GitHub answers them. */
  function serve(node: unknown, events: unknown[] = []): Services {
    github.scope.get(`${V3}/repos/octo/demo/issues/7`).matchHeader("authorization", "token ghs_installation1").reply(200, rest);
    github.scope
      .post(
        "/api/graphql",
        (body: { query: string; variables: unknown }) =>
          body.query.includes("userContentEdits") && JSON.stringify(body.variables) === JSON.stringify({ ids: ["I_7"] }),
      )
      .reply(200, { data: { nodes: [node] } });
    github.scope.get(`${V3}/repos/octo/demo/issues/7/events`).query({ per_page: "100" }).reply(200, events);
    const { octokit } = github.installation(1);
    const services = {
      github: { installation: octokit, graphqlReads: octokit, identity: async () => ({ botLogin: "escalation[bot]" }) },
      config: { agentLogins: [] },
    };
    return services as unknown as Services;
  }

  it("keeps the author's own last body when the bot edited it last", async () => {
    const services = serve({
      id: "I_7",
      author: { login: "alice" },
      editor: { login: "escalation" },
      lastEditedAt: "2026-01-01T00:05:00Z",
      userContentEdits: {
        totalCount: 2,
        nodes: [edit("escalation", "Shown on GitHub", "2026-01-01T00:05:00Z"), edit("alice", "Add a cache, please.", "2026-01-01T00:00:00Z")],
      },
    });
    const issue = await issueFromGitHub(services, data);
    expect(bodyForTask(issue)).toEqual({ body: "Add a cache, please.", bodyChangedBy: { editor: "escalation", kept: true } });
  });

  it("takes the body as shown when its author edited it last", async () => {
    const services = serve({
      id: "I_7",
      author: { login: "alice" },
      editor: { login: "alice" },
      lastEditedAt: "2026-01-01T00:05:00Z",
      userContentEdits: { totalCount: 0, nodes: [] },
    });
    expect(bodyForTask(await issueFromGitHub(services, data))).toEqual({ body: "Shown on GitHub" });
  });

  it("keeps the title a person gave the issue when the bot changed it last (the issue's events)", async () => {
    const services = serve(asShown, [
      renamed("maintainer", "User", "Cache", "Add a cache", "2026-01-01T00:00:00Z"),
      renamed("escalation[bot]", "Bot", "Add a cache", "Drop the tables", "2026-01-01T00:05:00Z"),
    ]);
    expect((await issueFromGitHub(services, data)).titleEdit).toEqual({ editor: "escalation[bot]", personsTitle: "Add a cache" });
  });

  it("leaves the title as shown when a person renamed it last", async () => {
    const services = serve(asShown, [
      renamed("escalation[bot]", "Bot", "Cache", "Drop it", "2026-01-01T00:00:00Z"),
      renamed("alice", "User", "Drop it", "Add a cache", "2026-01-01T00:05:00Z"),
    ]);
    expect((await issueFromGitHub(services, data)).titleEdit).toBeUndefined();
  });
});
