import type { BodyEdit, Gate, TitleEdit } from "../domain.js";
import { botJudge } from "../gates/issueTitle.js";
import { readTitleEdit } from "../reconcile/titleHistory.js";
import { issueBodyEdit } from "../reconcile/authorsWords.js";
import { installationGraphql } from "../reconcile/editHistory.js";
import type { FeedbackOp, SpawnJob } from "../payloads.js";
import type { SpawnTask } from "../queue/spawnQueue.js";
import { LOCK_RENEW_MS } from "../queue/jobLocks.js";
import type { SkipReason } from "./outcome.js";
import type { Services } from "../services/services.js";
import { agentLogin } from "../github/agentLogins.js";
import { BudgetedWriter, WritesDeferred, type WriterPorts } from "../status/budgetedWriter.js";
import { applyOp, type FeedbackOpPorts } from "../status/feedbackOps.js";
import { writeTarget } from "../status/writeTarget.js";
import { startAcknowledgements } from "./lines.js";

/**
 * What keeps one round per answer (and per dispatch) when workers die, their jobs run again,
 * webhooks are redelivered and Redis is wiped: checks made before a round starts, the mark a
 * dispatched round leaves on GitHub as it starts, and the record made when it ends. The agent itself is stopped with its app by the watchdog (src/agent/watchdog.ts).
 */

interface IssueRef {
  repo: string;
  issue: number;
}

/** What reading GitHub as the app takes: an installation's client and the app's own login. */
type GitHubPort = Pick<Services, "github">;
/** Who asked: the app's login and the configured agents'. */
type AskerPorts = GitHubPort & { config: Pick<Services["config"], "agentLogins"> };

/**
 * Why this job must start no round at all, as GitHub tells it; undefined when it may. (A job whose
 * round already ran to its end, re-run after its worker died, stops where its round would begin:
 * BEGIN_ROUND's "done".)
 */
export async function alreadyRan(services: GitHubPort, job: Pick<SpawnTask, "attemptsStarted">, data: SpawnJob): Promise<SkipReason | undefined> {
  // A `/agent` or `/retry` redelivered after Redis lost its delivery records: GitHub still shows the
  // 🚀 the app put on that comment when the round it dispatched started.
  if (data.trigger.type === "dispatch" && data.trigger.commentId && job.attemptsStarted <= 1 && (await rocketOn(services, data, data.trigger.commentId))) {
    return "that comment's round already started";
  }
  return undefined;
}

/**
 * Why the job's (re-)run of `round` must not go on; the round is then recorded as over. A round the
 * issue has since moved past would redo stale work beside or after the newer one, whose task already
 * has the answer; and a round whose agent already asked (it died on its way out, or failed after
 * asking) would ask again beside the open question: asking is a round's last act.
 */
export async function overtaken(
  services: AskerPorts & Pick<Services, "gates" | "rounds">,
  job: Pick<SpawnTask, "id" | "attemptsStarted" | "createdAt">,
  ref: IssueRef,
  round: number,
  currentRound: number,
  gates: readonly Gate[],
  resumed: Gate | undefined,
): Promise<SkipReason | undefined> {
  let why: SkipReason | undefined;
  if (round < currentRound) why = `round ${round} was superseded by a later round`;
  else if (job.attemptsStarted > 1 && (await askedInRound(services, gates, round, job.createdAt))) why = `round ${round} had already asked its question`;
  if (why) await finishRound(services, ref, job.id, resumed);
  return why;
}

/**
 * Redis was wiped moments ago (its epoch is newer than `startupEpoch`, the one this process started with): a live
 * worker may still run this issue's round, its job gone from under it; it notices at its next lock
 * renewal and stops the agent. Waits until then; false when `signal` aborted the wait. `epochAt` is
 * the epoch as the job already read it (IssueRounds.beginRound); read, and marked, when Redis had none.
 */
export async function redisSettled(
  services: Pick<Services, "config" | "namespaceMarks">,
  startupEpoch: number | undefined,
  epochAt: number | undefined,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const epoch = epochAt === undefined ? await services.namespaceMarks.epoch() : { at: epochAt };
  if (epoch.at === startupEpoch) return true;
  const quiet = 2 * LOCK_RENEW_MS + services.config.agent.killGraceSeconds * 1000 + 1000;
  const left = quiet - (Date.now() - epoch.at);
  return left <= 0 || pause(left, signal);
}

/**
 * Records that the job's round ran to its end and, for a resume, that its gate is resumed; first
 * thing after the agent exits, and through a brief Redis outage: lost, it would let a re-run of the
 * job run the finished round again.
 */
export async function finishRound(services: Pick<Services, "gates" | "rounds">, ref: IssueRef, jobId: string, gate: Gate | undefined): Promise<void> {
  await persist(async () => {
    await services.rounds.markRoundDone(ref, jobId);
    if (gate) await services.gates.finishResume(gate, Date.now());
  });
}

/**
 * The issue as GitHub has it, for a task whose issue record Redis lost (a wipe) after the job was
 * queued; with who last changed its body when that was not its author (src/gates/issueBody.ts).
 */
export async function issueFromGitHub(
  services: AskerPorts,
  data: SpawnJob,
): Promise<{ title: string; body: string; url: string; author?: string; bodyEdit?: BodyEdit; titleEdit?: TitleEdit }> {
  const [owner, repo] = data.repo.split("/") as [string, string];
  const octokit = await services.github.installation(data.installationId);
  const { data: issue } = await octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}", { owner, repo, issue_number: data.issue });
  const bodyEdit = issue.body ? await issueBodyEdit(installationGraphql(services, data.installationId), issue.node_id) : undefined;
  // And the title a person gave it (src/gates/issueTitle.ts).
  const titleEdit = await readTitleEdit(octokit, data.repo, data.issue, botJudge(services, (await services.github.identity()).botLogin));
  return {
    title: issue.title,
    body: issue.body ?? "",
    url: issue.html_url,
    author: issue.user?.login,
    ...(bodyEdit ? { bodyEdit } : {}),
    ...(titleEdit ? { titleEdit } : {}),
  };
}

/**
 * Puts the app's 🚀 on the comment that dispatched the round, as its agent starts: the mark alreadyRan
 * reads. Written at once, not queued behind the issue's feedback: a queued one can still be unwritten
 * when the app dies and Redis is wiped, and a redelivered dispatch would then run the round again.
 * Returns the acknowledgements still to queue: all of them when the write may not go now (the write
 * budget is spent, GitHub failed).
 */
export async function acknowledgeStart(services: WriterPorts & FeedbackOpPorts & GitHubPort, data: SpawnJob, gate: Gate | undefined): Promise<FeedbackOp[]> {
  const ops = startAcknowledgements(data, gate);
  if (ops.length === 0) return ops;
  try {
    const octokit = await services.github.installation(data.installationId);
    const writer = new BudgetedWriter(services, data.installationId);
    for (const op of ops) await applyOp(services, octokit, writeTarget(data.repo, data.issue), op, writer);
    return [];
  } catch (error) {
    // A write budget spent, or GitHub's pause, is the usual reason and no fault: the 🚀 goes with the issue's feedback.
    const level = error instanceof WritesDeferred ? "info" : "warn";
    services.log[level]({ err: error, repo: data.repo, issue: data.issue }, "could not put the 🚀 on the dispatching comment now; it is queued");
    return ops;
  }
}

/** Whether the app's 🚀 is on the comment. */
async function rocketOn(services: GitHubPort, data: SpawnJob, commentId: number): Promise<boolean> {
  const [owner, repo] = data.repo.split("/") as [string, string];
  const [octokit, { botLogin }] = await Promise.all([services.github.installation(data.installationId), services.github.identity()]);
  // Every page: on a busy comment the app's 🚀 can come after a hundred others.
  const pages = octokit.paginate.iterator("GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", {
    owner,
    repo,
    comment_id: commentId,
    content: "rocket",
    per_page: 100,
  });
  for await (const { data: reactions } of pages) {
    if (reactions.some((r) => r.user?.login === botLogin)) return true;
  }
  return false;
}

/** Whether an agent (or the app) asked a question in `round` since `since`; a human's /reopen correction does not count. */
async function askedInRound(services: AskerPorts, gates: readonly Gate[], round: number, since: number): Promise<boolean> {
  const { botLogin } = await services.github.identity();
  const byAgent = agentLogin(botLogin, services.config.agentLogins);
  // GitHub's timestamps have whole seconds.
  return gates.some((g) => g.round === round && g.askedAt >= since - 1000 && byAgent(g.askedBy));
}

/** Waits `ms`; false when `signal` aborts first (shutdown, /stop, a lost lock). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Retries a Redis write through a brief outage (a restart, a failover); gives up after about ten seconds. */
async function persist(write: () => Promise<void>, attempts = 20, delayMs = 500): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
