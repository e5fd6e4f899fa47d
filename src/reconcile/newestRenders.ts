import type { MarkerSeal } from "../protocol/marker.js";
import { parseStatusComment } from "../status/statusComment.js";
import { readEditHistories, type GraphqlPort } from "./editHistory.js";
import type { FoundRecord, StatusComment } from "../status/statusRecord.js";

/** Versions read per status comment: the app edits it at every status line, the agent may edit it too. */
export const STATUS_EDITS_READ = 100;

/**
 * The app's newest render of each status comment. The agent, acting as the App's bot, can put an
 * older render of the app's back in place of the newest (it verifies, and names the same comment);
 * GitHub's edit history of the comment (GraphQL `userContentEdits`, which no token rewrites) still
 * holds the newer one, and each render carries its place (`seq`). So the record with the highest
 * place among the versions read counts, and a comment whose current record is older is reported.
 * Records of earlier versions (no `comment`) have no place and are taken as shown.
 */
export async function newestRenders(
  graphql: GraphqlPort,
  found: readonly FoundRecord[],
  seal: MarkerSeal,
): Promise<{ found: FoundRecord[]; rolledBack: StatusComment[] }> {
  const bound = found.filter((f) => f.state.comment !== undefined && f.comment.node_id);
  if (bound.length === 0) return { found: [...found], rolledBack: [] };
  const histories = await readEditHistories(
    graphql,
    bound.map((f) => f.comment.node_id!),
    STATUS_EDITS_READ,
  );
  const rolledBack: StatusComment[] = [];
  const newest = found.map((f) => {
    const history = f.comment.node_id && f.state.comment !== undefined ? histories.get(f.comment.node_id) : undefined;
    let state = f.state;
    for (const edit of history?.userContentEdits?.nodes ?? []) {
      const version = edit?.diff ? parseStatusComment(edit.diff, seal) : undefined;
      if (version?.comment === f.comment.id && (version.seq ?? 0) > (state.seq ?? 0)) state = version;
    }
    if (state === f.state) return f;
    rolledBack.push(f.comment);
    return { comment: f.comment, state };
  });
  return { found: newest, rolledBack };
}
