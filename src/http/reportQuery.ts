import { describeIssues } from "../errors.js";
import type { ReportOptions } from "../observe/gateView.js";
import { InboxQuery } from "../observe/inbox.js";

/**
 * The status page's and its JSON's query: `repo`, `by=answerer` (the inbox) and `answerer`
 * (repeatable: a login or org/team). A bad value is an error message naming the parameter.
 */
export function reportQuery(url: URL): { options: ReportOptions } | { error: string } {
  const parsed = InboxQuery.safeParse({ by: url.searchParams.get("by") ?? undefined, answerers: url.searchParams.getAll("answerer") });
  if (!parsed.success) return { error: describeIssues(parsed.error.issues).replace(/^answerers\.\d+:/, "answerer:") };
  return { options: { repo: url.searchParams.get("repo") ?? undefined, by: parsed.data.by, answerers: parsed.data.answerers } };
}
