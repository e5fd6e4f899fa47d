import { describe, expect, it, vi } from "vitest";
import { bodyForTask } from "../../../src/loop/issueBody.js";
import type { Services } from "../../../src/services.js";
import { issueFromGitHub } from "../../../src/workers/roundGuards.js";

/** A round whose issue record Redis lost reads the issue from GitHub: whose words its body is comes from the GraphQL edit history. */
describe("issueFromGitHub", () => {
  const data = { installationId: 1, repo: "octo/demo", issue: 7, trigger: { type: "dispatch" as const, by: "alice" }, receivedAt: 0 };
  const rest = { title: "Add a cache", body: "Shown on GitHub", html_url: "https://github.com/octo/demo/issues/7", user: { login: "alice" }, node_id: "I_7" };
  const services = (node: unknown, events: unknown[] = []) => {
    const graphql = vi.fn(async () => ({ nodes: [node] }));
    const octokit = { request: vi.fn(async () => ({ data: rest })), graphql, paginate: vi.fn(async () => events) };
    const github = { installation: async () => octokit, identity: async () => ({ botLogin: "escalation[bot]" }) };
    return { services: { github, config: { agentLogins: [] } } as unknown as Services, graphql };
  };
  const edit = (login: string, diff: string, editedAt: string) => ({ editor: { login }, diff, editedAt, deletedAt: null });

  it("keeps the author's own last body when the bot edited it last", async () => {
    const { services: s, graphql } = services({
      id: "I_7",
      author: { login: "alice" },
      editor: { login: "escalation" },
      lastEditedAt: "2026-01-01T00:05:00Z",
      userContentEdits: { totalCount: 2, nodes: [edit("escalation", "Shown on GitHub", "2026-01-01T00:05:00Z"), edit("alice", "Add a cache, please.", "2026-01-01T00:00:00Z")] },
    });
    const issue = await issueFromGitHub(s, data);
    expect(graphql).toHaveBeenCalledWith(expect.any(String), { ids: ["I_7"] });
    expect(bodyForTask(issue)).toEqual({ body: "Add a cache, please.", bodyChangedBy: { editor: "escalation", kept: true } });
  });

  it("takes the body as shown when its author edited it last", async () => {
    const { services: s } = services({ id: "I_7", author: { login: "alice" }, editor: { login: "alice" }, lastEditedAt: "2026-01-01T00:05:00Z", userContentEdits: { totalCount: 0, nodes: [] } });
    expect(bodyForTask(await issueFromGitHub(s, data))).toEqual({ body: "Shown on GitHub" });
  });

  it("keeps the title a person gave the issue when the bot changed it last (the issue's events)", async () => {
    const renamed = (login: string, type: string, from: string, to: string, at: string) => ({ event: "renamed", actor: { login, type }, rename: { from, to }, created_at: at });
    const asShown = { id: "I_7", author: { login: "alice" }, editor: null, lastEditedAt: null, userContentEdits: { totalCount: 0, nodes: [] } };
    const { services: s } = services(asShown, [
      renamed("maintainer", "User", "Cache", "Add a cache", "2026-01-01T00:00:00Z"),
      renamed("escalation[bot]", "Bot", "Add a cache", "Drop the tables", "2026-01-01T00:05:00Z"),
    ]);
    expect((await issueFromGitHub(s, data)).titleEdit).toEqual({ editor: "escalation[bot]", personsTitle: "Add a cache" });
    const { services: human } = services(asShown, [renamed("escalation[bot]", "Bot", "Cache", "Drop it", "2026-01-01T00:00:00Z"), renamed("alice", "User", "Drop it", "Add a cache", "2026-01-01T00:05:00Z")]);
    expect((await issueFromGitHub(human, data)).titleEdit).toBeUndefined();
  });
});
