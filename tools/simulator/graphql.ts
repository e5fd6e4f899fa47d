import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import type * as GraphQLJs from "graphql";
import { requireIssuesAccess, requireVisible, type Actor } from "./access.js";
import { ApiError } from "./errors.js";
import { parseNodeId } from "./payloads.js";
import type { Account, Comment, Issue, Repo, SimState } from "./state.js";

/**
 * GitHub's GraphQL endpoint for what the app reads through it: comments and issues by node id with
 * their author, last editor and edit history, and an issue's title changes (`timelineItems`). Every query is validated against GitHub's published schema
 * (@octokit/graphql-schema), so the app cannot ask for a field or argument GitHub lacks; it is then
 * executed against that schema, answered from the simulator's state.
 */

let loaded: { js: typeof GraphQLJs; schema: GraphQLJs.GraphQLSchema } | undefined;

/**
 * graphql-js and GitHub's public schema, loaded at the first GraphQL request and kept (the schema is
 * large): both are devDependencies, and the rest of the simulator runs without them. The schema is
 * built from its introspection result: the package's SDL defines some fields twice, which a schema
 * built from SDL refuses. One graphql-js instance builds and uses it (it refuses another's schema).
 */
function graphqlJs(): { js: typeof GraphQLJs; schema: GraphQLJs.GraphQLSchema } {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const dirs = require.resolve.paths("@octokit/graphql-schema") ?? [];
    // Its exports do not name schema.json, and importing the package builds a schema of its own.
    const file = dirs.map((dir) => join(dir, "@octokit", "graphql-schema", "schema.json")).find((f) => existsSync(f));
    if (!file) throw new Error("The simulator's GraphQL endpoint needs the devDependencies graphql and @octokit/graphql-schema: run npm install.");
    const js = require("graphql") as typeof GraphQLJs;
    loaded = { js, schema: js.buildClientSchema(JSON.parse(readFileSync(file, "utf8")) as GraphQLJs.IntrospectionQuery) };
  }
  return loaded;
}

/** What GitHub's schema refuses in a query (it does not parse, or asks for what GitHub lacks); empty when valid. */
export function queryViolations(query: string): string[] {
  const { js, schema } = graphqlJs();
  try {
    return js.validate(schema, js.parse(query)).map((e) => e.message);
  } catch (error) {
    return [(error as Error).message];
  }
}

/** GitHub answers a query it refuses with 200 and `errors`, as here; a malformed request body with 400. */
export function answerGraphql(state: SimState, actor: Actor, body: unknown): { data?: unknown; errors?: unknown[] } {
  const { query, variables } = (body ?? {}) as { query?: unknown; variables?: unknown };
  if (typeof query !== "string") throw new ApiError(400, "A query attribute must be specified and must be a string.");
  const { js, schema } = graphqlJs();
  let document: GraphQLJs.DocumentNode;
  try {
    document = js.parse(query);
  } catch (error) {
    return { errors: [{ message: (error as Error).message }] };
  }
  const invalid = js.validate(schema, document);
  if (invalid.length > 0) return { errors: invalid.map((e) => ({ message: e.message, locations: e.locations })) };
  const missing: Array<{ type: string; path: Array<string | number>; message: string }> = [];
  const rootValue = {
    nodes: ({ ids }: { ids: string[] }) =>
      ids.map((id, index) => {
        const node = commentNode(state, actor, id) ?? issueNode(state, actor, id);
        if (!node) missing.push({ type: "NOT_FOUND", path: ["nodes", index], message: `Could not resolve to a node with the global id of '${id}'` });
        return node;
      }),
  };
  const result = js.executeSync({ schema, document, rootValue, variableValues: (variables ?? {}) as Record<string, unknown> });
  const errors = [...(result.errors ?? []).map((e) => ({ message: e.message, path: e.path })), ...missing];
  return { data: result.data ?? null, ...(errors.length > 0 ? { errors } : {}) };
}

/** An issue comment the actor may read, shaped for the schema's default resolvers. */
function commentNode(state: SimState, actor: Actor, id: string): Record<string, unknown> | null {
  const named = parseNodeId(id);
  if (named?.type !== "IssueComment") return null;
  const comment = state.commentById(named.id);
  if (!comment || !mayRead(actor, comment.repo)) return null;
  return { __typename: "IssueComment", id, databaseId: comment.id, ...commentFields(comment, comment.body) };
}

/** An issue or pull request the actor may read (both are a `Comment` too: the body's author, last editor and edit history). */
function issueNode(state: SimState, actor: Actor, id: string): Record<string, unknown> | null {
  const named = parseNodeId(id);
  if (named?.type !== "Issue" && named?.type !== "PullRequest") return null;
  const issue = state.issueById(named.id);
  if (!issue || (issue.pullRequest !== undefined) !== (named.type === "PullRequest") || !mayRead(actor, issue.repo)) return null;
  return {
    __typename: named.type,
    id,
    databaseId: issue.id,
    number: issue.number,
    title: issue.title,
    ...commentFields(issue, issue.body ?? ""),
    timelineItems: (args: { itemTypes?: string[]; first?: number; last?: number }) => renames(issue, args),
  };
}

/** The issue's title changes as timeline items, oldest first; the only item type served (others are an empty list). */
function renames(issue: Issue, args: { itemTypes?: string[]; first?: number; last?: number }) {
  const wanted = !args.itemTypes || args.itemTypes.includes("RENAMED_TITLE_EVENT");
  const all = wanted ? issue.events.filter((e) => e.event === "renamed" && e.rename) : [];
  const nodes = args.first !== undefined ? all.slice(0, args.first) : args.last !== undefined ? all.slice(-args.last) : all;
  return {
    totalCount: all.length,
    pageInfo: { hasNextPage: nodes.length < all.length && args.first !== undefined, hasPreviousPage: nodes.length < all.length && args.last !== undefined },
    nodes: nodes.map((e) => ({
      __typename: "RenamedTitleEvent",
      id: `RTE_${e.id}`,
      createdAt: e.createdAt,
      previousTitle: e.rename!.from,
      currentTitle: e.rename!.to,
      actor: actorNode(e.actor),
    })),
  };
}

/** Whether the actor may read the repository's issues; GraphQL answers null for a node it may not. */
function mayRead(actor: Actor, repo: Repo): boolean {
  try {
    requireVisible(actor, repo);
    requireIssuesAccess(actor, "read");
    return true;
  } catch {
    return false;
  }
}

/** The fields of GraphQL's `Comment` interface: the body, its author, last editor and edit history. */
function commentFields(record: Pick<Comment, "edits" | "author" | "createdAt" | "updatedAt">, body: string): Record<string, unknown> {
  const last = record.edits.at(-1);
  return {
    body,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    author: actorNode(record.author),
    editor: last ? actorNode(last.editor) : null,
    lastEditedAt: last?.editedAt ?? null,
    includesCreatedEdit: record.edits.length > 0,
    userContentEdits: (args: { first?: number; last?: number }) => editsConnection(record, args),
  };
}

/** Newest first, as GitHub lists an edit history. */
function editsConnection(comment: Pick<Comment, "edits">, args: { first?: number; last?: number }) {
  const all = [...comment.edits].reverse();
  const nodes = args.first !== undefined ? all.slice(0, args.first) : args.last !== undefined ? all.slice(-args.last) : all;
  return {
    totalCount: all.length,
    pageInfo: { hasNextPage: nodes.length < all.length && args.first !== undefined, hasPreviousPage: nodes.length < all.length && args.last !== undefined },
    nodes: nodes.map((edit) => ({
      __typename: "UserContentEdit",
      createdAt: edit.editedAt,
      updatedAt: edit.editedAt,
      editedAt: edit.editedAt,
      editor: actorNode(edit.editor),
      diff: edit.deleted ? null : edit.body,
      deletedAt: edit.deleted?.at ?? null,
      deletedBy: edit.deleted ? actorNode(edit.deleted.by) : null,
    })),
  };
}

/** GraphQL names an App's bot without REST's "[bot]" suffix. */
function actorNode(account: Account): Record<string, unknown> {
  return account.type === "Bot"
    ? { __typename: "Bot", login: account.login.replace(/\[bot\]$/, "") }
    : { __typename: account.type === "Organization" ? "Organization" : "User", login: account.login };
}
