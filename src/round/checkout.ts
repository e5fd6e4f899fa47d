import type { RepoSettings } from "../config/repoConfig.js";
import { AgentError, WorkspaceError } from "../errors.js";
import { agentLogin } from "../github/agentLogins.js";
import type { Services } from "../services/services.js";
import { sendFeedback, type IssueTarget } from "../status/feedback.js";
import type { PreparedWorkspace } from "../workspace/prepareWorkspace.js";
import { askedSince, deliverPullRequest, deliveryLine } from "../workspace/pullRequest.js";
import { openRoundWorkspace, savedLine, type RoundWorkspace } from "./workspace.js";
import type { SpawnJob } from "../payloads.js";

/**
 * The round's checkout as a spawn job handles it (the workspace, src/workspace/): opened before the
 * agent starts, its work saved and delivered as the issue's pull request after it exits. Each step's
 * failure is told on the status comment; only the opening's is retried, the others never fail the round.
 */

/** The workspace's checkout for the round, or why it cannot have one. */
export async function openWorkspace(
  services: Services,
  data: SpawnJob,
  round: number,
  settings: RepoSettings["workspace"],
  target: IssueTarget,
): Promise<RoundWorkspace> {
  try {
    return await openRoundWorkspace(services, {
      installationId: data.installationId,
      repo: data.repo,
      issue: data.issue,
      round,
      branchTemplate: settings.branch,
      pullRequest: settings.pullRequest,
    });
  } catch (error) {
    // Retried like an agent that could not start; the issue says why meanwhile.
    await sendFeedback(services, target, { line: `round ${round}: could not prepare the checkout: ${(error as Error).message}` });
    throw new AgentError(`could not prepare the checkout for round ${round}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Commits and pushes what the round left. A push that still fails after its retries, or work over a
 * limit, is told on the status line and does not fail the round: the checkout stays on disk, and the
 * next preparation pushes it (work over a limit is dropped then, as the line said).
 */
export async function saveRoundWork(prepared: PreparedWorkspace, log: Services["log"]): Promise<{ line: string; notable: boolean; onBranch: boolean }> {
  try {
    const saved = await prepared.save();
    return { line: savedLine(saved), notable: saved.divertedTo !== undefined, onBranch: saved.divertedTo === undefined };
  } catch (error) {
    log.warn({ err: error }, "could not save the round's work");
    const next = error instanceof WorkspaceError && error.reason === "limit" ? "" : " It stays on this host and is pushed before the next round.";
    return { line: ` · the work could not be pushed: ${(error as Error).message}${next}`, notable: true, onBranch: false };
  }
}

/**
 * A round that finished without asking delivers the branch as the issue's pull request (opened
 * once, found again later). A failure is told on the status line; the round stays finished.
 */
export async function deliverRound(
  services: Pick<Services, "github" | "config">,
  data: SpawnJob,
  prepared: PreparedWorkspace,
  title: string,
  startedAt: number,
  known: ReadonlySet<string>,
  log: Services["log"],
): Promise<string> {
  try {
    const [octokit, { botLogin }] = await Promise.all([services.github.installation(data.installationId), services.github.identity()]);
    const isAgent = agentLogin(botLogin, services.config.agentLogins);
    if (await askedSince(octokit, data.repo, data.issue, startedAt, known, isAgent)) return "";
    const delivery = await deliverPullRequest({
      octokit,
      repo: data.repo,
      issue: data.issue,
      issueTitle: title,
      branch: prepared.branch,
      base: prepared.base,
      checkout: prepared.checkout,
    });
    return deliveryLine(delivery);
  } catch (error) {
    log.warn({ err: error }, "could not deliver the pull request");
    return ` · ${(error as Error).message}`;
  }
}
