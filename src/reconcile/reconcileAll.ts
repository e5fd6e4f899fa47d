import type { Services } from "../services.js";
import { reconcileIssue, type IssueSnapshot } from "./reconcileIssue.js";

export interface ReconcileReport {
  installations: number;
  repositories: number;
  issues: number;
  changes: string[];
  errors: string[];
}

/** Issues updated this long before the last run are scanned again, for clock skew and slow deliveries. */
const OVERLAP_MS = 5 * 60_000;

/**
 * Walks every installation's repositories and rebuilds the issues that matter: those labelled as
 * awaiting a human, and those updated since the last run (an ask or answer whose webhook never
 * arrived). Errors on one repository are reported and do not stop the others.
 */
export async function reconcileAll(services: Services, options: { lookbackMs: number }): Promise<ReconcileReport> {
  const started = Date.now();
  const last = await services.store.lastReconcile();
  const since = new Date((last ?? started - options.lookbackMs) - OVERLAP_MS).toISOString();
  const report: ReconcileReport = { installations: 0, repositories: 0, issues: 0, changes: [], errors: [] };
  const app = await services.github.app();
  const installations = (await app.paginate("GET /app/installations", { per_page: 100 })) as Array<{ id: number }>;
  for (const installation of installations) {
    report.installations++;
    const octokit = await services.github.installation(installation.id);
    const repos = (await octokit.paginate("GET /installation/repositories", { per_page: 100 })) as Array<{ full_name: string }>;
    for (const { full_name: repo } of repos) {
      report.repositories++;
      try {
        const [owner, name] = repo.split("/") as [string, string];
        const { settings } = await services.settings(installation.id, repo);
        const labelled = (await octokit.paginate("GET /repos/{owner}/{repo}/issues", { owner, repo: name, labels: settings.labels.awaiting, state: "open", per_page: 100 })) as IssueSnapshot[];
        const recent = (await octokit.paginate("GET /repos/{owner}/{repo}/issues", { owner, repo: name, since, state: "all", per_page: 100 })) as IssueSnapshot[];
        const byNumber = new Map<number, IssueSnapshot>();
        for (const issue of [...labelled, ...recent]) byNumber.set(issue.number, issue);
        for (const issue of byNumber.values()) {
          report.issues++;
          report.changes.push(...(await reconcileIssue(services, octokit, installation.id, repo, issue, settings)));
        }
      } catch (error) {
        report.errors.push(`${repo}: ${(error as Error).message}`);
        services.log.warn({ repo, err: error }, "reconciliation failed for a repository");
      }
    }
  }
  if (report.errors.length === 0) await services.store.setLastReconcile(started);
  services.log.info({ ...report, changes: report.changes.length }, "reconciliation finished");
  return report;
}
