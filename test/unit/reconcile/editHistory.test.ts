import { describe, expect, it, vi } from "vitest";
import { issueBodyEdit } from "../../../src/reconcile/authorsWords.js";
import {
  authorsText,
  EDIT_HISTORY_QUERY,
  graphqlPort,
  IDS_PER_REQUEST,
  installationGraphql,
  readEditHistories,
  type CommentHistory,
} from "../../../src/reconcile/editHistory.js";

const edit = (editor: string | null, editedAt: string, diff: string | null, deletedAt: string | null = null) => ({
  editor: editor ? { login: editor } : null,
  editedAt,
  diff,
  deletedAt,
});

function history(editor: string | null, edits: ReturnType<typeof edit>[], totalCount = edits.length): CommentHistory {
  return {
    id: "IC_1",
    author: { login: "alice" },
    editor: editor ? { login: editor } : null,
    lastEditedAt: editor ? "2026-01-01T00:05:00Z" : null,
    userContentEdits: { totalCount, nodes: edits },
  };
}

describe("authorsText: a reply's words as its author left them", () => {
  it("takes the text as shown when nobody edited it, or its author edited it last (case aside)", () => {
    expect(authorsText(history(null, []))).toEqual({ kind: "as-shown" });
    expect(authorsText(history("Alice", [edit("Alice", "2026-01-01T00:05:00Z", "1: B"), edit("alice", "2026-01-01T00:00:00Z", "1: A")]))).toEqual({
      kind: "as-shown",
    });
  });

  it("takes its author's newest version when another account edited it last, whatever order the history comes in", () => {
    const edits = [
      edit("alice", "2026-01-01T00:00:00Z", "1: A"),
      edit("escalation", "2026-01-01T00:05:00Z", "1: C"),
      edit("alice", "2026-01-01T00:02:00Z", "1: B"),
    ];
    expect(authorsText(history("escalation", edits))).toEqual({ kind: "own-version", text: "1: B", editor: "escalation" });
  });

  it("takes nothing when the author's newest version was deleted from the history, or is not in it", () => {
    const deleted = [edit("escalation", "2026-01-01T00:05:00Z", "1: C"), edit("alice", "2026-01-01T00:00:00Z", null, "2026-01-01T00:06:00Z")];
    expect(authorsText(history("escalation", deleted))).toMatchObject({
      kind: "not-theirs",
      editor: "escalation",
      why: expect.stringMatching(/deleted from its edit history/),
    });
    expect(authorsText(history("escalation", [edit("escalation", "2026-01-01T00:05:00Z", "1: C")]))).toMatchObject({
      kind: "not-theirs",
      why: expect.stringMatching(/holds no version/),
    });
    // Only the newest edits were read: the author's version may be older than those, and is not guessed at.
    expect(authorsText(history("escalation", [edit("escalation", "2026-01-01T00:05:00Z", "1: C")], 30))).toMatchObject({
      kind: "not-theirs",
      why: expect.stringMatching(/longer than the app reads/),
    });
  });

  it("treats a deleted account as nobody's author: another's edit is never its words", () => {
    const ghost: CommentHistory = {
      ...history("escalation", [edit("escalation", "2026-01-01T00:05:00Z", "1: C"), edit(null, "2026-01-01T00:00:00Z", "1: A")]),
      author: null,
    };
    expect(authorsText(ghost)).toMatchObject({ kind: "not-theirs" });
  });
});

describe("readEditHistories", () => {
  it("asks for many comments per request and skips ids GitHub no longer resolves", async () => {
    const ids = Array.from({ length: IDS_PER_REQUEST + 1 }, (_, i) => `IC_${i}`);
    const graphql = vi.fn(async (_query: string, variables: { ids: string[] }) => ({
      nodes: variables.ids.map((id) => (id === "IC_3" ? null : { ...history(null, []), id })),
    }));
    const read = await readEditHistories(graphql, [...ids, "IC_0"]);
    expect(graphql).toHaveBeenCalledTimes(2);
    expect(graphql.mock.calls[0]![0]).toBe(EDIT_HISTORY_QUERY);
    expect(graphql.mock.calls[0]![1].ids).toHaveLength(IDS_PER_REQUEST);
    expect(read.size).toBe(ids.length - 1);
    expect(read.has("IC_3")).toBe(false);
  });

  it("refuses a response of another shape", async () => {
    await expect(readEditHistories(async () => ({ nodes: [{ id: 5 }] }), ["IC_1"])).rejects.toThrow(/Unexpected GraphQL edit-history response/);
  });
});

describe("graphqlPort", () => {
  it("uses the data GitHub sends beside an error for an id it no longer resolves (a comment deleted since it was listed)", async () => {
    const partial = Object.assign(new Error("Could not resolve to a node"), { name: "GraphqlResponseError", data: { nodes: [null] } });
    const port = graphqlPort({ graphql: async () => Promise.reject(partial) });
    expect(await port(EDIT_HISTORY_QUERY, { ids: ["IC_gone"] })).toEqual({ nodes: [null] });
  });

  it("passes on any other failure", async () => {
    const port = graphqlPort({ graphql: async () => Promise.reject(Object.assign(new Error("Bad credentials"), { status: 401 })) });
    await expect(port(EDIT_HISTORY_QUERY, { ids: ["IC_1"] })).rejects.toThrow("Bad credentials");
  });

  it("an installation's port builds its GraphQL client once, on its first query", async () => {
    const graphql = vi.fn(async () => ({ nodes: [] }));
    const graphqlReads = vi.fn(
      async () => ({ graphql }) as unknown as Awaited<ReturnType<Parameters<typeof installationGraphql>[0]["github"]["graphqlReads"]>>,
    );
    const port = installationGraphql({ github: { graphqlReads } }, 7);
    expect(graphqlReads).not.toHaveBeenCalled();
    await port(EDIT_HISTORY_QUERY, { ids: ["IC_1"] });
    await port(EDIT_HISTORY_QUERY, { ids: ["IC_2"] });
    expect(graphqlReads.mock.calls).toEqual([[7]]);
    expect(graphql).toHaveBeenCalledTimes(2);
  });
});

describe("issueBodyEdit: whose words an issue's body is", () => {
  const port = (node: CommentHistory | null) => vi.fn(async () => ({ nodes: [node && { ...node, id: "I_1" }] }));

  it("is its author's when nobody else edited it last", async () => {
    expect(await issueBodyEdit(port(history(null, [])), "I_1")).toBeNull();
    expect(
      await issueBodyEdit(port(history("alice", [edit("alice", "2026-01-01T00:05:00Z", "B"), edit("alice", "2026-01-01T00:00:00Z", "A")])), "I_1"),
    ).toBeNull();
  });

  it("names the other editor and keeps the author's own last version when the history holds it", async () => {
    const edits = [edit("escalation", "2026-01-01T00:05:00Z", "FORGED"), edit("alice", "2026-01-01T00:00:00Z", "A")];
    expect(await issueBodyEdit(port(history("escalation", edits)), "I_1")).toEqual({ editor: "escalation", authorBody: "A" });
  });

  it("names the other editor with no version when the author's is not in the history", async () => {
    expect(await issueBodyEdit(port(history("escalation", [edit("escalation", "2026-01-01T00:05:00Z", "FORGED")])), "I_1")).toEqual({ editor: "escalation" });
  });

  it("is undefined for an issue GitHub no longer resolves", async () => {
    expect(await issueBodyEdit(port(null), "I_1")).toBeUndefined();
  });
});
