import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitHubSimulator } from "../../../tools/simulator/index.js";
import { EDIT_HISTORY_QUERY } from "../../../src/reconcile/editHistory.js";
import { graphqlViolations } from "../../support/github/graphqlCheck.js";

const REPO = "acme/widgets";

describe("the simulator's GraphQL endpoint", () => {
  let sim: GitHubSimulator;

  beforeEach(async () => {
    sim = await GitHubSimulator.start({ webhookSecret: "s" });
    sim.addRepo(REPO);
    sim.addUser("alice");
    sim.createIssue(REPO, { title: "Agent needs help", author: sim.botLogin });
  });
  afterEach(() => sim.stop());

  /** As the App's installation: the token the app and its agents hold. */
  async function token(): Promise<string> {
    const response = await fetch(`${sim.apiUrl}/app/installations/1/access_tokens`, { method: "POST", headers: { authorization: `Bearer ${sim.appJwt()}` } });
    expect(response.status).toBe(201);
    return ((await response.json()) as { token: string }).token;
  }

  async function graphql(query: string, variables: Record<string, unknown>): Promise<{ status: number; body: any }> {
    const response = await fetch(`${sim.url}/api/graphql`, {
      method: "POST",
      headers: { authorization: `token ${await token()}`, "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: await response.json() };
  }

  async function nodeIdOf(commentId: number): Promise<string> {
    const response = await fetch(`${sim.apiUrl}/repos/${REPO}/issues/comments/${commentId}`, { headers: { authorization: `token ${await token()}` } });
    return ((await response.json()) as { node_id: string }).node_id;
  }

  it("answers the app's edit-history query from REST's node ids: who edited, and every version with its editor, newest first", async () => {
    const comment = sim.comment(REPO, 1, "alice", "1: A");
    const edited = await fetch(`${sim.apiUrl}/repos/${REPO}/issues/comments/${comment.id}`, {
      method: "PATCH",
      headers: { authorization: `token ${await token()}`, "content-type": "application/json" },
      body: JSON.stringify({ body: "1: B" }),
    });
    expect(edited.status).toBe(200);
    const untouched = sim.comment(REPO, 1, "alice", "never edited");

    const { status, body } = await graphql(EDIT_HISTORY_QUERY, { ids: [await nodeIdOf(comment.id), await nodeIdOf(untouched.id)] });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const [first, second] = body.data.nodes;
    expect(first).toMatchObject({ author: { login: "alice" }, editor: { login: sim.botLogin.replace(/\[bot\]$/, "") }, userContentEdits: { totalCount: 2 } });
    expect(first.lastEditedAt).toEqual(expect.any(String));
    expect(first.userContentEdits.nodes.map((e: any) => [e.editor.login, e.diff])).toEqual([
      [sim.botLogin.replace(/\[bot\]$/, ""), "1: B"],
      ["alice", "1: A"],
    ]);
    expect(second).toMatchObject({ author: { login: "alice" }, editor: null, lastEditedAt: null, userContentEdits: { totalCount: 0, nodes: [] } });
  });

  it("answers an issue's node id with its body's author, last editor and edit history, the PATCH's editor recorded", async () => {
    sim.addUser("maintainer");
    sim.setPermission(REPO, "maintainer", "write");
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "the author's words", author: "maintainer" });
    const untouched = sim.createIssue(REPO, { title: "Another", body: "never edited", author: "maintainer" });
    const patch = await fetch(`${sim.apiUrl}/repos/${REPO}/issues/${issue.number}`, {
      method: "PATCH",
      headers: { authorization: `token ${await token()}`, "content-type": "application/json" },
      body: JSON.stringify({ body: "the bot's words" }),
    });
    expect(patch.status).toBe(200);
    const nodeIdOfIssue = async (n: number) =>
      ((await (await fetch(`${sim.apiUrl}/repos/${REPO}/issues/${n}`, { headers: { authorization: `token ${await token()}` } })).json()) as { node_id: string })
        .node_id;

    const { status, body } = await graphql(EDIT_HISTORY_QUERY, { ids: [await nodeIdOfIssue(issue.number), await nodeIdOfIssue(untouched.number)] });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const [edited, plain] = body.data.nodes;
    const bot = sim.botLogin.replace(/\[bot\]$/, "");
    expect(edited).toMatchObject({
      author: { login: "maintainer" },
      editor: { login: bot },
      lastEditedAt: expect.any(String),
      userContentEdits: { totalCount: 2 },
    });
    expect(edited.userContentEdits.nodes.map((e: any) => [e.editor.login, e.diff])).toEqual([
      [bot, "the bot's words"],
      ["maintainer", "the author's words"],
    ]);
    expect(plain).toMatchObject({ author: { login: "maintainer" }, editor: null, lastEditedAt: null, userContentEdits: { totalCount: 0, nodes: [] } });
  });

  it("refuses a field GitHub's schema lacks, as GitHub does, and the request checker flags it", async () => {
    const query = "query($ids: [ID!]!) { nodes(ids: $ids) { ... on IssueComment { id editedBy { login } } } }";
    const { status, body } = await graphql(query, { ids: [] });
    expect(status).toBe(200);
    expect(body.data).toBeUndefined();
    expect(body.errors[0].message).toMatch(/Cannot query field "editedBy" on type "IssueComment"/);
    expect(graphqlViolations({ query })).toEqual([expect.stringMatching(/editedBy/)]);
    expect(graphqlViolations({ query: EDIT_HISTORY_QUERY })).toEqual([]);
  });

  it("answers a deleted comment's id with null and GitHub's NOT_FOUND error, next to the others' data", async () => {
    const gone = sim.comment(REPO, 1, "alice", "soon gone");
    const kept = sim.comment(REPO, 1, "alice", "kept");
    const goneId = await nodeIdOf(gone.id);
    sim.deleteComment(REPO, gone.id, "alice");
    const { body } = await graphql(EDIT_HISTORY_QUERY, { ids: [goneId, await nodeIdOf(kept.id)] });
    expect(body.data.nodes[0]).toBeNull();
    expect(body.data.nodes[1]).toMatchObject({ author: { login: "alice" } });
    expect(body.errors).toEqual([expect.objectContaining({ type: "NOT_FOUND", path: ["nodes", 0] })]);
  });

  it("needs a token", async () => {
    const response = await fetch(`${sim.url}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: EDIT_HISTORY_QUERY, variables: { ids: [] } }),
    });
    expect(response.status).toBe(401);
  });
});
