import type { RepoSettings } from "../config/repoConfig.js";
import { describeOutcome, recordsChange } from "../gates/outcome.js";
import { maySteer } from "../gates/maySteer.js";
import { parseCommand } from "../protocol/commands.js";
import { sealOf } from "../protocol/marker.js";
import type { Services } from "../services/services.js";
import type { InstallationOctokit } from "../github/octokit.js";
import { isIssueComment } from "../github/replyIds.js";
import { agentLogin } from "../github/agentLogins.js";
import { askComments } from "./askComments.js";
import { withAuthorsWords } from "./authorsWords.js";
import { goneReplies } from "./deletedComments.js";
import { installationGraphql } from "./editHistory.js";
import type { IssueHistory } from "./issueHistories.js";
import { refreshIssueRecord } from "./issueRecord.js";
import type { IssueSnapshot } from "./issueSnapshot.js";
import { ladderStepsShown } from "./ladderSteps.js";
import { issueClosed, replayBase, replyCreated, replyDeleted, type Replay } from "./replayedEvents.js";
import { restoreGates } from "./restoreGates.js";
import { restoreStatusRecord } from "./restoreStatusRecord.js";
import { inWrittenOrder, reviewReplies, type ReplySnapshot } from "./reviewReplies.js";
import { withTimelineIfNeeded } from "./timelineRecord.js";

/** Replies that are safe to replay: answers, and commands whose effect is idempotent per comment. */
const REPLAYABLE = new Set(["answer", "defaults", "cancel", "agent", "retry"]);

/**
 * Rebuilds one issue from GitHub, the source of truth: gates Redis lost are restored from the ask
 * markers and the status comment's hidden state, and human replies after the open question are
 * replayed through the normal path, so an answer given while the app was down (or whose webhook
 * never arrived) is recorded and resumed exactly once. Returns what it changed. `history`: the body's
 * and title's histories, when a pass read them for many issues at once (src/reconcile/issueHistories.ts).
 */
export async function reconcileIssue(
  services: Services,
  replay: Replay,
  octokit: InstallationOctokit,
  installationId: number,
  repo: string,
  issue: IssueSnapshot,
  settings: RepoSettings,
  history?: IssueHistory,
): Promise<string[]> {
  const [owner, name] = repo.split("/") as [string, string];
  const ref = { repo, issue: issue.number };
  const comments = (await octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner,
    repo: name,
    issue_number: issue.number,
    per_page: 100,
  })) as ReplySnapshot[];
  const identity = await services.github.identity();
  const isAgent = agentLogin(identity.botLogin, services.config.agentLogins);
  const base = replayBase(installationId, repo, issue);
  await refreshIssueRecord(services, octokit, base, issue, identity.botLogin, history);

  const seal = sealOf(services.config.stateKey, ref);
  const isApp = (login: string) => login === identity.botLogin;
  const asks = askComments(comments, isAgent);
  const restored = await restoreStatusRecord(services, octokit, base, { comments, asks, isApp, isAgent, seal });
  const { record, changes } = restored;

  // Reminder-ladder steps the issue already shows are not posted again by the steps rescheduled below.
  for (const [gateId, steps] of ladderStepsShown(comments, isApp, seal)) await services.gates.markLadderStepsPosted(gateId, steps);

  // On a pull request people answer in reviews too: those replies are read with the comments, each
  // with its author's own words (a reply someone else edited last is not taken as written). Their
  // edit histories are read only when their words are (replies since `since`), so most runs read none.
  const listed = inWrittenOrder(comments, base.issue.isPullRequest ? await reviewReplies(octokit, owner, name, issue.number) : []);
  const repliesSince = (since: number) =>
    withAuthorsWords(
      services,
      installationGraphql(services, installationId),
      { installationId, repo, issue: issue.number },
      listed,
      (r) => r.user !== null && !isAgent(r.user.login) && r.user.type !== "Bot",
      since,
    );
  const firstAsk = asks.length > 0 ? Date.parse(asks[0]!.comment.created_at) : Number.POSITIVE_INFINITY;
  const state = await withTimelineIfNeeded(
    services,
    octokit,
    { owner, name, number: issue.number },
    asks,
    () => repliesSince(firstAsk),
    restored.state,
    settings,
    (login, type) => maySteer(services, { ...base, kind: "closed", sender: { login, type } }, login, type, settings),
  );
  if (state && state.nextRound > (record?.state.nextRound ?? 0)) await services.rounds.raiseNextRound(ref, state.nextRound);
  changes.push(...(await restoreGates(services, replay, base, asks, state, settings)));

  // Replies deleted while the app was down or their webhook was lost: withdrawn as the deletion would have.
  const [gates, notes] = await Promise.all([services.gates.issueGates(ref), services.notes.notes(ref)]);
  for (const gone of goneReplies(
    gates,
    notes,
    comments.map((c) => c.id),
  )) {
    const outcome = await replay(replyDeleted(base, gone));
    changes.push(`${repo}#${issue.number}: comment ${gone.id} of @${gone.by} is gone from GitHub: ${describeOutcome(outcome)}`);
  }

  const open = await services.gates.lastGate(ref);
  if (open?.state === "open" && issue.state === "closed") {
    const outcome = await replay(issueClosed(base));
    changes.push(`${repo}#${issue.number}: issue is closed; ${describeOutcome(outcome)}`);
    return changes;
  }
  if (open?.state === "open" || (open?.state === "answered" && open.answerCommentId !== undefined)) {
    for (const comment of await repliesSince(open.askedAt)) {
      if (!comment.user || isAgent(comment.user.login) || comment.user.type === "Bot" || !comment.body) continue;
      // Only replies after the question: comment ids grow with time, while timestamps have whole
      // seconds and would take in the answer to the question before, given in the same second. A
      // review's id is of another sequence: its time must do, from the ask's second on.
      const askId = Number(open.id);
      const afterAsk = isIssueComment(comment.id)
        ? Number.isSafeInteger(askId)
          ? comment.id > askId
          : Date.parse(comment.created_at) >= open.askedAt - 1000
        : Date.parse(comment.created_at) >= open.askedAt;
      if (!afterAsk) continue;
      const command = parseCommand(comment.body);
      if (command && !REPLAYABLE.has(command.name)) continue;
      const outcome = await replay(replyCreated(base, comment));
      if (recordsChange(outcome))
        changes.push(`${repo}#${issue.number}: replayed comment ${comment.id} by @${comment.user.login}: ${describeOutcome(outcome)}`);
      const now = await services.gates.getGate(open.id);
      if (now?.state !== "open") break;
    }
  }
  return changes;
}
