import type { Services } from "../services/services.js";
import { z } from "zod";
import { ProtocolError, describeIssues } from "../errors.js";

/**
 * Who last edited a comment or an issue's body and what it said before, from GitHub's GraphQL API
 * (an Issue is a `Comment` there too): the REST body of a human's reply or issue may be someone
 * else's edit (the agent's token acts as the App's bot and may edit any comment and issue), and a
 * rebuild must not take it for the human's words.
 */

/** Edits read per comment: enough for any reply's history; a longer one is not guessed at. */
export const EDITS_READ = 20;
/** Node ids per request (GitHub's `nodes(ids:)` takes at most 100). */
export const IDS_PER_REQUEST = 50;

/** The query reading `edits` versions of each comment's history. */
export function editHistoryQuery(edits: number): string {
  return `query CommentEditHistories($ids: [ID!]!) {
  nodes(ids: $ids) {
    ... on Comment {
      id
      author { login }
      editor { login }
      lastEditedAt
      userContentEdits(first: ${edits}) {
        totalCount
        nodes { editedAt deletedAt diff editor { login } }
      }
    }
  }
}`;
}

export const EDIT_HISTORY_QUERY = editHistoryQuery(EDITS_READ);

const Login = z.object({ login: z.string() }).nullable().optional();
/** A comment's or an issue body's authorship and edits, as GitHub's GraphQL returns them. */
export const HistorySchema = z.object({
  id: z.string(),
  author: Login,
  editor: Login,
  lastEditedAt: z.string().nullable().optional(),
  userContentEdits: z
    .object({
      totalCount: z.number().int().nonnegative(),
      nodes: z
        .array(
          z.object({ editedAt: z.string(), deletedAt: z.string().nullable().optional(), diff: z.string().nullable().optional(), editor: Login }).nullable(),
        )
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
});
/** Null for an id GitHub no longer resolves (the comment was deleted). */
const ResponseSchema = z.object({ nodes: z.array(HistorySchema.nullable()) });

export type CommentHistory = z.infer<typeof HistorySchema>;

/** What a rebuild takes as a human reply's words. */
export type AuthorsText = { kind: "as-shown" } | { kind: "own-version"; text: string; editor: string } | { kind: "not-theirs"; editor: string; why: string };

/**
 * The author's own words in a comment: as shown when nobody else edited it last; else the newest
 * version its author saved, from the edit history (each edit's `diff` holds the text it saved, the
 * first the text as created). When that version is not in the history (deleted from it, or beyond
 * the edits read), the comment is not the author's answer.
 */
export function authorsText(history: CommentHistory): AuthorsText {
  const author = history.author?.login.toLowerCase();
  const editor = history.editor?.login;
  if (!history.lastEditedAt || !editor || editor.toLowerCase() === author) return { kind: "as-shown" };
  const edits = (history.userContentEdits?.nodes ?? []).flatMap((e) => (e ? [e] : [])).sort((a, b) => Date.parse(b.editedAt) - Date.parse(a.editedAt));
  // A deleted account (no author) has no version of its own to find.
  const own = author === undefined ? undefined : edits.find((e) => e.editor?.login.toLowerCase() === author);
  const complete = (history.userContentEdits?.totalCount ?? 0) <= edits.length;
  if (!own)
    return { kind: "not-theirs", editor, why: complete ? "its edit history holds no version of its author" : "its edit history is longer than the app reads" };
  if (own.deletedAt || own.diff === null || own.diff === undefined)
    return { kind: "not-theirs", editor, why: "its author's last version was deleted from its edit history" };
  return { kind: "own-version", text: own.diff, editor };
}

/** The port a rebuild reads histories through: an installation's GraphQL client. */
export type GraphqlPort = (query: string, variables: { ids: string[] }) => Promise<unknown>;

/**
 * An installation's GraphQL client as the port. A comment deleted between the listing and this
 * request makes GitHub answer with an error for its id and the other nodes' data: the data is used.
 */
export function graphqlPort(octokit: { graphql: (query: string, variables: Record<string, unknown>) => Promise<unknown> }): GraphqlPort {
  return async (query, variables) => {
    try {
      return await octokit.graphql(query, variables);
    } catch (error) {
      const partial = error as { name?: string; data?: unknown };
      if (partial.name === "GraphqlResponseError" && partial.data) return partial.data;
      throw error;
    }
  };
}

/** The installation's GraphQL reads as the port, the client built on its first query and kept for the port's others (src/github/graphqlReads.ts). */
export function installationGraphql(services: { github: Pick<Services["github"], "graphqlReads"> }, installationId: number): GraphqlPort {
  let client: ReturnType<Services["github"]["graphqlReads"]> | undefined;
  return graphqlPort({ graphql: async (query, variables) => (await (client ??= services.github.graphqlReads(installationId))).graphql(query, variables) });
}

/** The edit histories of comments by node id, in batches of IDS_PER_REQUEST (one request each). Deleted comments are absent. */
export async function readEditHistories(graphql: GraphqlPort, nodeIds: readonly string[], edits = EDITS_READ): Promise<Map<string, CommentHistory>> {
  const query = edits === EDITS_READ ? EDIT_HISTORY_QUERY : editHistoryQuery(edits);
  const out = new Map<string, CommentHistory>();
  const unique = [...new Set(nodeIds)];
  for (let i = 0; i < unique.length; i += IDS_PER_REQUEST) {
    const parsed = ResponseSchema.safeParse(await graphql(query, { ids: unique.slice(i, i + IDS_PER_REQUEST) }));
    if (!parsed.success) throw new ProtocolError(`Unexpected GraphQL edit-history response: ${describeIssues(parsed.error.issues)}`);
    for (const node of parsed.data.nodes) if (node) out.set(node.id, node);
  }
  return out;
}
