import { z } from "zod";
import type { BodyEdit, TitleEdit } from "../domain.js";
import { ProtocolError, describeIssues } from "../errors.js";
import { authorsText, EDITS_READ, HistorySchema, IDS_PER_REQUEST, type GraphqlPort } from "./editHistory.js";
import { titleEditOf } from "./titleHistory.js";

/**
 * Whose words an issue's body and title are, for many issues at once: a rebuild after Redis loss
 * needs both for every issue it reads, and one GraphQL request per IDS_PER_REQUEST issues replaces
 * a request for each body's edit history and a read of each issue's events for its renames.
 */

/** Renames read per issue; an issue renamed more often is read from its events instead. */
export const RENAMES_READ = 100;

const COMMENT_FIELDS = `id author { login } editor { login } lastEditedAt
      userContentEdits(first: ${EDITS_READ}) { totalCount nodes { editedAt deletedAt diff editor { login } } }`;
const RENAMES = `timelineItems(itemTypes: [RENAMED_TITLE_EVENT], last: ${RENAMES_READ}) {
        totalCount
        nodes { ... on RenamedTitleEvent { createdAt previousTitle currentTitle actor { __typename login } } }
      }`;

export const ISSUE_HISTORIES_QUERY = `query IssueHistories($ids: [ID!]!) {
  nodes(ids: $ids) {
    ... on Issue { ${COMMENT_FIELDS}
      ${RENAMES} }
    ... on PullRequest { ${COMMENT_FIELDS}
      ${RENAMES} }
  }
}`;

const Rename = z.object({
  createdAt: z.string(),
  previousTitle: z.string(),
  currentTitle: z.string(),
  actor: z.object({ __typename: z.string(), login: z.string() }).nullable().optional(),
});
const IssueHistorySchema = HistorySchema.extend({
  timelineItems: z.object({ totalCount: z.number().int().nonnegative(), nodes: z.array(Rename.partial().nullable()).nullable().optional() }),
});
/** A node GitHub no longer resolves is null. */
const ResponseSchema = z.object({ nodes: z.array(IssueHistorySchema.nullable()) });

/** What the batch knows of one issue; undefined fields are read the one-issue way. */
export interface IssueHistory {
  /** As issueBodyEdit says it: null when the author's words; undefined when GitHub no longer has the issue. */
  bodyEdit: BodyEdit | null | undefined;
  /** As readTitleEdit says it; undefined when the renames were more than the batch reads. */
  titleEdit: TitleEdit | null | undefined;
}

/** The issues' body and title histories by node id; issues GitHub no longer resolves are absent. */
export async function readIssueHistories(
  graphql: GraphqlPort,
  nodeIds: readonly string[],
  isBot: (actor: { login: string; type: string }) => boolean,
): Promise<Map<string, IssueHistory>> {
  const out = new Map<string, IssueHistory>();
  const unique = [...new Set(nodeIds)];
  for (let i = 0; i < unique.length; i += IDS_PER_REQUEST) {
    const parsed = ResponseSchema.safeParse(await graphql(ISSUE_HISTORIES_QUERY, { ids: unique.slice(i, i + IDS_PER_REQUEST) }));
    if (!parsed.success) throw new ProtocolError(`Unexpected GraphQL issue-history response: ${describeIssues(parsed.error.issues)}`);
    for (const node of parsed.data.nodes) {
      if (!node) continue;
      out.set(node.id, { bodyEdit: bodyEditOf(node), titleEdit: titleEditFrom(node, isBot) });
    }
  }
  return out;
}

function bodyEditOf(node: z.infer<typeof IssueHistorySchema>): BodyEdit | null {
  const text = authorsText(node);
  if (text.kind === "as-shown") return null;
  return text.kind === "own-version" ? { editor: text.editor, authorBody: text.text } : { editor: text.editor };
}

/** GraphQL names an App's bot without REST's "[bot]" suffix. */
function restActor(actor: { __typename: string; login: string }): { login: string; type: string } {
  return actor.__typename === "Bot" ? { login: `${actor.login}[bot]`, type: "Bot" } : { login: actor.login, type: actor.__typename };
}

/** The renames as the REST events list them, judged as readTitleEdit judges them. */
function titleEditFrom(node: z.infer<typeof IssueHistorySchema>, isBot: (actor: { login: string; type: string }) => boolean): TitleEdit | null | undefined {
  const renames = (node.timelineItems.nodes ?? []).flatMap((r) => (r?.createdAt && r.previousTitle !== undefined && r.currentTitle !== undefined ? [r] : []));
  if (node.timelineItems.totalCount > renames.length) return undefined;
  const events = renames.map((r) => ({
    event: "renamed",
    actor: r.actor ? restActor(r.actor) : null,
    rename: { from: r.previousTitle!, to: r.currentTitle! },
    created_at: r.createdAt,
  }));
  return titleEditOf(events, isBot);
}
