import { inboundPath } from "./inboundPath.js";
import { botJudge } from "../gates/issueTitle.js";
import type { Services } from "../services/services.js";
import type { InstallationOctokit } from "../github/octokit.js";
import { atOnce } from "./atOnce.js";
import { activeRepos, InstallationSchema, type InstallationListing } from "./activeRepos.js";
import { installationGraphql } from "./editHistory.js";
import { readIssueHistories, type IssueHistory } from "./issueHistories.js";
import { reconcileIssue } from "./reconcileIssue.js";
import type { IssueSnapshot } from "./issueSnapshot.js";

export interface ReconcileReport {
  /** "full": every repository read; "incremental": only those with an open gate or activity since the last pass. */
  mode: "full" | "incremental";
  installations: number;
  /** Repositories read. */
  repositories: number;
  issues: number;
  changes: string[];
  errors: string[];
}

/** Issues updated this long before the last run are scanned again, for clock skew, slow deliveries and the search index's lag. */
const OVERLAP_MS = 5 * 60_000;
/** A pass reads every repository at least this often, whatever the search says. */
const FULL_PASS_EVERY_MS = 24 * 3600_000;
/** Repositories read at once: a rebuild waits on GitHub's answers, not on this process. */
const REPOS_AT_ONCE = 4;

/**
 * Walks the installations' repositories and rebuilds the issues that matter: those labelled as
 * awaiting a human, and those updated since the last run (an ask or answer whose webhook never
 * arrived). A full pass reads every repository's labelled issues: the first after Redis lost the
 * last run's time (a wipe), one asked for (start-up, `escalate reconcile`), and one a day. Others
 * read only the repositories with a gate open in Redis or an issue updated since the last run. One
 * issue search per installation says which repositories had activity, so an idle repository costs
 * no request for it (and a full pass, one list of its labelled issues); when the search cannot say,
 * each repository is asked. Errors on one repository are reported and do not stop the others.
 */
export async function reconcileAll(services: Services, options: { lookbackMs: number; full?: boolean }): Promise<ReconcileReport> {
  const started = Date.now();
  const last = await services.namespaceMarks.lastReconcile();
  const lastFull = await services.namespaceMarks.lastFullReconcile();
  const full = options.full === true || last === undefined || lastFull === undefined || started - lastFull >= FULL_PASS_EVERY_MS;
  const since = new Date((last ?? started - options.lookbackMs) - OVERLAP_MS).toISOString().replace(/\.\d{3}Z$/, "Z");
  const report: ReconcileReport = { mode: full ? "full" : "incremental", installations: 0, repositories: 0, issues: 0, changes: [], errors: [] };
  const app = await services.github.app();
  const installations = ((await app.paginate("GET /app/installations", { per_page: 100 })) as unknown[]).flatMap((i) => {
    const parsed = InstallationSchema.safeParse(i);
    return parsed.success ? [parsed.data] : [];
  });
  const withOpenGates = full ? new Map<number, Set<string>>() : await services.gates.openGateRepos();
  if (full) await services.gates.recountOpenGateRepos();
  for (const installation of installations) {
    report.installations++;
    try {
      const octokit = await services.github.installation(installation.id);
      const plan = await reposToRead(services, octokit, installation, { full, since, open: withOpenGates.get(installation.id) ?? new Set() });
      await atOnce(plan.repos, REPOS_AT_ONCE, async (repo) => {
        report.repositories++;
        try {
          await reconcileRepo(services, octokit, installation.id, repo, { since: plan.recent(repo) ? since : undefined, labelled: full }, report);
        } catch (error) {
          report.errors.push(`${repo}: ${(error as Error).message}`);
          services.log.warn({ repo, err: error }, "reconciliation failed for a repository");
        }
      });
    } catch (error) {
      report.errors.push(`installation ${installation.id}: ${(error as Error).message}`);
      services.log.warn({ installation: installation.id, err: error }, "reconciliation failed for an installation");
    }
  }
  if (report.errors.length === 0) {
    await services.namespaceMarks.setLastReconcile(started);
    if (full) await services.namespaceMarks.setLastFullReconcile(started);
  }
  services.log.info({ ...report, changes: report.changes.length }, "reconciliation finished");
  return report;
}

/**
 * The installation's repositories a pass reads, and those whose issues updated since are listed.
 * Full: every repository; the updated issues of those the search found active (all, when it cannot
 * say). Incremental: those with an open gate or found active, when the search can say. The
 * installation's listing is read when it holds only some of its account's repositories (the search
 * reaches the account's public ones too) or the pass is full.
 */
async function reposToRead(
  services: Services,
  octokit: InstallationOctokit,
  installation: InstallationListing,
  pass: { full: boolean; since: string; open: ReadonlySet<string> },
): Promise<{ repos: string[]; recent: (repo: string) => boolean }> {
  const listAll = async () => {
    const repos = (await octokit.paginate("GET /installation/repositories", { per_page: 100 })) as Array<{ full_name: string }>;
    return repos.map((r) => r.full_name);
  };
  const active = await activeRepos(octokit, installation, pass.since).catch((error: unknown) => {
    services.log.warn({ installation: installation.id, err: error }, "could not search for the installation's recent issues; asking each repository");
    return undefined;
  });
  // GitHub's repository names are case-insensitive; a gate keeps the name as its webhook wrote it.
  const wanted = new Map<string, string>();
  for (const repo of [...pass.open, ...(active ?? [])]) if (!wanted.has(repo.toLowerCase())) wanted.set(repo.toLowerCase(), repo);
  const recent = (repo: string) => active === undefined || wanted.has(repo.toLowerCase());
  if (pass.full || !active) return { repos: await listAll(), recent };
  if (installation.repository_selection === "all") return { repos: [...wanted.values()], recent };
  return { repos: (await listAll()).filter((r) => wanted.has(r.toLowerCase())), recent };
}

/**
 * One repository: the issues updated since (unless the search found none there), and in a full pass
 * those labelled as awaiting a human (a gate Redis lost may be older than any lookback). Its settings
 * are read only when they are needed. Whose words each body and title are is read for all of them at
 * once (issueHistories.ts), so an issue with an open gate costs its comments page and little else.
 */
async function reconcileRepo(
  services: Services,
  octokit: InstallationOctokit,
  installationId: number,
  repo: string,
  scope: { since: string | undefined; labelled: boolean },
  report: ReconcileReport,
): Promise<void> {
  const [owner, name] = repo.split("/") as [string, string];
  const settingsOf = async () => (await services.settings(installationId, repo)).settings;
  const list = (filter: Record<string, string>) =>
    octokit.paginate("GET /repos/{owner}/{repo}/issues", { owner, repo: name, per_page: 100, ...filter }) as Promise<IssueSnapshot[]>;
  const labelled = scope.labelled ? await list({ labels: (await settingsOf()).labels.awaiting, state: "open" }) : [];
  const recent = scope.since === undefined ? [] : await list({ since: scope.since, state: "all" });
  const byNumber = new Map<number, IssueSnapshot>();
  for (const issue of [...labelled, ...recent]) byNumber.set(issue.number, issue);
  if (byNumber.size === 0) return;
  const settings = await settingsOf();
  const identity = await services.github.identity();
  const nodeIds = [...byNumber.values()].flatMap((i) => (i.node_id ? [i.node_id] : []));
  const histories =
    nodeIds.length === 0
      ? new Map<string, IssueHistory>()
      : await readIssueHistories(installationGraphql(services, installationId), nodeIds, botJudge(services, identity.botLogin));
  for (const issue of byNumber.values()) {
    report.issues++;
    const history = issue.node_id ? histories.get(issue.node_id) : undefined;
    report.changes.push(...(await reconcileIssue(services, inboundPath(services), octokit, installationId, repo, issue, settings, history)));
  }
}
