/**
 * Where a feedback entry's writes go: the issue, by owner and repository name as GitHub's REST paths
 * take them, and by its full name as the store keys it. Built once per entry from its fields.
 */
export interface WriteTarget {
  owner: string;
  repo: string;
  fullName: string;
  issue: number;
}

/** The target of a job for `fullName` ("owner/repo") and `issue`. */
export function writeTarget(fullName: string, issue: number): WriteTarget {
  const [owner, repo] = fullName.split("/") as [string, string];
  return { owner, repo, fullName, issue };
}

/** The issue as the store names it. */
export function issueOf(t: WriteTarget): { repo: string; issue: number } {
  return { repo: t.fullName, issue: t.issue };
}
