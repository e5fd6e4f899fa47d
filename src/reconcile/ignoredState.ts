import { sendFeedback, type IssueTarget } from "../loop/feedback.js";
import { noticedComment, renderIgnoredNotice, type IgnoredWhy } from "../protocol/ignoredNotice.js";
import { readSignedMarker, type MarkerSeal, type SignedKind } from "../protocol/marker.js";
import type { Services } from "../services.js";

export interface StateComment {
  id: number;
  body?: string;
  html_url: string;
  user: { login: string } | null;
}

/** A comment under the app's (or an agent's) name whose state marker the app did not sign. */
export interface IgnoredState {
  id: number;
  url: string;
  kind: SignedKind;
  why: IgnoredWhy;
}

const KINDS: readonly SignedKind[] = ["status", "ladder", "notice"];

/**
 * The comments of the app's identity (which the agent shares) that carry app state whose signature
 * is missing or does not verify for this issue. A rebuild reads none of them; a human's comment
 * quoting a marker is plain text and not listed.
 */
export function ignoredState(comments: readonly StateComment[], isApp: (login: string) => boolean, seal: MarkerSeal): IgnoredState[] {
  const out: IgnoredState[] = [];
  for (const c of comments) {
    if (!c.user || !isApp(c.user.login) || !c.body) continue;
    for (const kind of KINDS) {
      const { outcome } = readSignedMarker(c.body, kind, seal);
      if (outcome === "unsigned" || outcome === "mismatching") {
        out.push({ id: c.id, url: c.html_url, kind, why: outcome });
        break;
      }
    }
  }
  return out;
}

/**
 * Logs each ignored comment and says so on the issue, once per comment: the app's signed notices on
 * the issue name the comments already reported (so a rebuild after a Redis wipe does not repeat
 * them), and Redis remembers the ones queued but not yet posted.
 */
export async function reportIgnoredState(services: Services, target: IssueTarget, comments: readonly StateComment[], ignored: readonly IgnoredState[], seal: MarkerSeal): Promise<string[]> {
  if (ignored.length === 0) return [];
  const identity = await services.github.identity();
  const reported = new Set(comments.flatMap((c) => (c.user?.login === identity.botLogin && c.body ? [noticedComment(c.body, seal)] : [])));
  const changes: string[] = [];
  for (const item of ignored) {
    services.log.warn({ repo: target.repo, issue: target.issue, comment: item.id, marker: item.kind, why: item.why }, "ignored app state the app did not sign");
    if (reported.has(item.id) || !(await services.store.firstTime(`ignored-state:${target.repo.toLowerCase()}:${item.id}`))) continue;
    await sendFeedback(services, target, [{ type: "comment", body: renderIgnoredNotice(item, item.why, seal) }], undefined, `ignored-state-${item.id}`);
    changes.push(`${target.repo}#${target.issue}: ignored the ${item.why} ${item.kind} marker of comment ${item.id}`);
  }
  return changes;
}
