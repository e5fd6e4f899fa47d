import { sendFeedback, type IssueTarget } from "../status/feedback.js";
import { createHash } from "node:crypto";
import { MAX_IGNORED_PER_NOTICE, noticedComments, renderIgnoredNotice, type IgnoredWhy } from "../protocol/ignoredNotice.js";
import { readSignedMarker, type MarkerSeal, type SignedKind } from "../protocol/marker.js";
import type { Services } from "../services/services.js";

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
 * Says so on the issue in one note naming every ignored comment not reported yet, and logs each of
 * them: the app's signed notes on the issue name the comments already reported (so a later rebuild,
 * after a Redis wipe too, neither repeats them nor posts again when nothing changed), and Redis
 * remembers a note queued but not yet posted.
 */
export async function reportIgnoredState(
  services: Services,
  target: IssueTarget,
  comments: readonly StateComment[],
  ignored: readonly IgnoredState[],
  seal: MarkerSeal,
): Promise<string[]> {
  if (ignored.length === 0) return [];
  const identity = await services.github.identity();
  const reported = new Set(comments.flatMap((c) => (c.user?.login === identity.botLogin && c.body ? noticedComments(c.body, seal) : [])));
  const fresh = ignored.filter((item) => !reported.has(item.id)).slice(0, MAX_IGNORED_PER_NOTICE);
  for (const item of ignored) {
    const at = { repo: target.repo, issue: target.issue, comment: item.id, marker: item.kind, why: item.why };
    if (reported.has(item.id)) services.log.debug(at, "ignored app state the app did not sign (already said on the issue)");
    else services.log.warn(at, "ignored app state the app did not sign");
  }
  if (fresh.length === 0) return [];
  const digest = createHash("sha256")
    .update(fresh.map((i) => i.id).join(","))
    .digest("hex")
    .slice(0, 16);
  if (!(await services.commentMarks.firstTime(`ignored-state:${target.repo.toLowerCase()}#${target.issue}:${digest}`))) return [];
  await sendFeedback(services, target, { ops: [{ type: "comment", body: renderIgnoredNotice(fresh, seal) }], key: `ignored-state-${target.issue}-${digest}` });
  return [
    `${target.repo}#${target.issue}: ignored the state of ${fresh.length} comment(s) under the app's name: ${fresh.map((i) => `${i.id} (${i.why} ${i.kind})`).join(", ")}`,
  ];
}
