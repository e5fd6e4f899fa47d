import type { RepoSettings } from "../config/repoConfig.js";
import type { Ask, Gate, RecordedAnswer, Withdrawal } from "../domain.js";
import { ProtocolError } from "../errors.js";
import { sendFeedback } from "../status/feedback.js";
import { approvalRule } from "../gates/approvalGate.js";
import { describeOutcome, recordsChange, type Outcome } from "../gates/outcome.js";
import { maySteer } from "../gates/maySteer.js";
import type { InboundEvent } from "../jobs/payloads.js";
import { parseAskComment } from "../protocol/ask.js";
import { parseCommand } from "../protocol/commands.js";
import { sealOf, type MarkerSeal } from "../protocol/marker.js";
import { readLadderMarker } from "../protocol/reminders.js";
import type { StatusState } from "../status/statusComment.js";
import type { CommentEvent } from "../jobs/payloads.js";
import type { Services } from "../services.js";
import type { InstallationOctokit } from "../github/octokit.js";
import { isIssueComment } from "../github/replyIds.js";
import { inWrittenOrder, reviewReplies, type ReplySnapshot } from "./reviewReplies.js";
import { goneReplies, issueCommentIdOf, withoutDeletedComments } from "./deletedComments.js";
import { ignoredState, reportIgnoredState } from "./ignoredState.js";
import { mergeStatusRecords, statusRecords } from "../status/statusRecord.js";
import { newestRenders } from "./newestRenders.js";
import { issueBodyEdit, withAuthorsWords } from "./authorsWords.js";
import { graphqlPort } from "./editHistory.js";
import { readTitleEdit } from "./titleHistory.js";
import { botJudge } from "../gates/issueTitle.js";
import { resumedOnTimeline, withTimeline, type LabelEvent, type TimelineComment } from "./timeline.js";
import { agentLogin } from "../github/agentLogins.js";
import type { IssueHistory } from "./issueHistories.js";

/** Runs an event through the webhook's path (handleInbound): how replies are replayed, taking no import of it. */
export type Replay = (event: InboundEvent) => Promise<Outcome>;

/** What reconciliation needs of an issue, as GitHub's REST API returns it. */
export interface IssueSnapshot {
  number: number;
  title: string;
  body?: string | null;
  html_url: string;
  state: string;
  pull_request?: unknown;
  assignees?: Array<{ login: string }> | null;
  user?: { login: string } | null;
  /** GitHub's GraphQL id: who last edited the body is read by it. */
  node_id?: string;
  /** As the REST API lists them; an ask reopened here is not labelled again when the issue has the label. */
  labels?: Array<string | { name?: string }>;
}

type CommentSnapshot = ReplySnapshot;

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
  const changes: string[] = [];
  const comments = (await octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner,
    repo: name,
    issue_number: issue.number,
    per_page: 100,
  })) as CommentSnapshot[];
  const identity = await services.github.identity();
  const isAgent = agentLogin(identity.botLogin, services.config.agentLogins);
  const base = {
    deliveryId: "reconcile",
    installationId,
    repo,
    issue: {
      number: issue.number,
      title: issue.title,
      body: issue.body ?? "",
      url: issue.html_url,
      state: issue.state,
      ...(issue.user ? { author: issue.user.login } : {}),
      isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null,
      assignees: (issue.assignees ?? []).map((a) => a.login).slice(0, 10),
      labels: (issue.labels ?? [])
        .map((l) => (typeof l === "string" ? l : (l.name ?? "")))
        .filter(Boolean)
        .slice(0, 100),
    },
    receivedAt: Date.now(),
  };
  // The body as its author wrote it: the REST body may be another account's edit (README, "Changed by someone else").
  const bodyEdit = !issue.node_id || !issue.body ? undefined : history ? history.bodyEdit : await issueBodyEdit(graphqlPort(octokit), issue.node_id);
  if (bodyEdit)
    services.log.warn(
      { ...ref, author: issue.user?.login, editor: bodyEdit.editor, kept: bodyEdit.authorBody !== undefined },
      "the issue's body was last edited by someone other than its author",
    );
  // The title a person gave it: read from its events only when Redis has no record of the live edits.
  const titleEdit = (await services.issues.getIssue(ref))
    ? undefined
    : history?.titleEdit !== undefined
      ? history.titleEdit
      : await readTitleEdit(octokit, repo, issue.number, botJudge(services, identity.botLogin));
  await services.issues.upsertIssue({
    ...ref,
    installationId,
    titleEdit,
    title: base.issue.title,
    body: base.issue.body,
    url: base.issue.url,
    author: issue.user?.login,
    assignees: base.issue.assignees,
    state: issue.state,
    bodyEdit,
  });

  // The app's own state counts only where its signature verifies (README, "Signed state"); the rest is
  // reported once and the issue rebuilt from its questions and replies instead.
  const seal = sealOf(services.config.stateKey, ref);
  const isApp = (login: string) => login === identity.botLogin;
  const readings = statusRecords(comments, isApp, seal);
  // An older render put back in place of the newest is found in the comment's edit history, read
  // only when the record is what the rebuild goes on (Redis lost the issue or one of its gates).
  const newest = (await recordNeeded(services, ref, comments, isAgent))
    ? await newestRenders(graphqlPort(octokit), readings.found, seal)
    : { found: readings.found, rolledBack: [] };
  const record = mergeStatusRecords(newest.found);
  const replayed = [...readings.replayed, ...newest.rolledBack].map((c) => ({
    id: c.id,
    url: c.html_url ?? issue.html_url,
    kind: "status" as const,
    why: "replayed" as const,
  }));
  if (replayed.length > 0)
    services.log.warn(
      { ...ref, comments: replayed.map((r) => r.id) },
      "status records the app signed but not for where, or not as late as, they stand: the app's newest is taken",
    );
  const ignored = [...ignoredState(comments, isAgent, seal), ...replayed].sort((a, b) => a.id - b.id);
  changes.push(...(await reportIgnoredState(services, { installationId, repo, issue: issue.number }, comments, ignored, seal)));
  const present = new Set(comments.map((c) => c.id));
  let state = record && withoutDeletedComments(record.state, (id) => present.has(id), Date.now());
  if (record) {
    await services.rounds.restoreNextRound(ref, record.state.nextRound);
    await services.statusLog.restoreStatusCommentId(ref, record.commentId);
  }
  if (record?.state.rounds?.length) await services.rounds.restoreRoundTimings(ref, record.state.rounds);
  // /note guidance Redis lost comes back from the status comment, with its audit hash.
  if (state?.notes?.length && (await services.notes.notes(ref)).length === 0) {
    for (const note of state.notes) await services.notes.addNote(ref, note);
    changes.push(`${repo}#${issue.number}: restored ${state.notes.length} note(s) from the status comment`);
  }

  // Reminder-ladder steps the issue already shows are not posted again by the steps rescheduled below.
  for (const [gateId, steps] of ladderStepsShown(comments, isApp, seal)) await services.gates.markLadderStepsPosted(gateId, steps);

  const asks = comments.flatMap((c) => {
    if (!c.user || !isAgent(c.user.login) || !c.body) return [];
    const ask = safeAsk(c.body);
    return ask ? [{ comment: c, ask }] : [];
  });
  const last = asks.at(-1);
  // On a pull request people answer in reviews too: those replies are read with the comments, each
  // with its author's own words (a reply someone else edited last is not taken as written). Their
  // edit histories are read only when their words are (replies since `since`), so most runs read none.
  const listed = inWrittenOrder(comments, base.issue.isPullRequest ? await reviewReplies(octokit, owner, name, issue.number) : []);
  const repliesSince = (since: number) =>
    withAuthorsWords(
      services,
      graphqlPort(octokit),
      { installationId, repo, issue: issue.number },
      listed,
      (r) => r.user !== null && !isAgent(r.user.login) && r.user.type !== "Bot",
      since,
    );
  const firstAsk = asks.length > 0 ? Date.parse(asks[0]!.comment.created_at) : Number.POSITIVE_INFINITY;
  state = await withTimelineIfNeeded(
    services,
    octokit,
    { owner, name, number: issue.number },
    asks,
    () => repliesSince(firstAsk),
    state,
    settings,
    (login, type) => maySteer(services, { ...base, kind: "closed", sender: { login, type } }, login, type, settings),
  );
  if (state && state.nextRound > (record?.state.nextRound ?? 0)) await services.rounds.raiseNextRound(ref, state.nextRound);
  for (const { comment, ask } of asks) {
    if (await services.gates.getGate(String(comment.id))) continue;
    const found = state?.gates.find((g) => g.id === String(comment.id));
    // "resuming": the resumed round started but GitHub never learnt that it finished (its agent died
    // with the app, or Redis was wiped under it). The newest such gate is answered again, so the
    // replay below queues its resume; an older one was followed by a newer question, so it ran.
    const known = found?.state === "resuming" ? { ...found, state: comment === last?.comment ? "answered" : "resumed" } : found;
    if (known && known.state !== "open") {
      await services.gates.restoreGate(settledGate(known, comment, ask, installationId, repo, issue.number));
      changes.push(`${repo}#${issue.number}: restored ${known.state} gate ${comment.id} from the status comment`);
    } else if (comment === last?.comment && issue.state === "open" && editedAt(comment) !== undefined) {
      // The question was edited after it was asked (the app never edits an ask): it no longer stands.
      const reason = `the question was edited at ${new Date(editedAt(comment)!).toISOString().replace(/\.\d+Z$/, "Z")}`;
      await services.gates.restoreGate({
        ...settledGate({ id: String(comment.id), state: "superseded", round: ask.round, answers: [] }, comment, ask, installationId, repo, issue.number),
        closedReason: reason,
      });
      await sendFeedback(
        services,
        { installationId, repo, issue: issue.number },
        [{ type: "removeLabel", label: settings.labels.awaiting }],
        `gate ${comment.id} superseded: ${reason}; an answer to it will be recorded but not resumed`,
      );
      changes.push(`${repo}#${issue.number}: restored gate ${comment.id} as superseded: ${reason}`);
    } else if (comment === last?.comment && issue.state === "open") {
      // GitHub shows the label the app put on before Redis lost the gate: the reopened gate's label-on write is coalesced.
      if (hasLabel(base.issue.labels, settings.labels.awaiting) && (await services.issues.awaitingLabel(ref)) === undefined) {
        await services.issues.setAwaitingLabel(ref, "on");
      }
      const outcome = await replay({
        ...base,
        kind: "comment",
        action: "created",
        deliveryId: `reconcile-${comment.id}`,
        sender: userOf(comment),
        comment: commentOf(comment),
      });
      changes.push(`${repo}#${issue.number}: reopened gate ${comment.id} that Redis had lost (${describeOutcome(outcome)})`);
    } else {
      await services.gates.restoreGate({
        ...settledGate({ id: String(comment.id), state: "superseded", round: ask.round, answers: [] }, comment, ask, installationId, repo, issue.number),
        closedReason: "a newer question was asked",
      });
    }
  }

  // Replies deleted while the app was down or their webhook was lost: withdrawn as the deletion would have.
  const [gates, notes] = await Promise.all([services.gates.issueGates(ref), services.notes.notes(ref)]);
  for (const gone of goneReplies(
    gates,
    notes,
    comments.map((c) => c.id),
  )) {
    const author = { login: gone.by, type: "User" };
    const comment = { id: gone.id, body: "", url: gone.url, createdAt: new Date().toISOString(), author };
    const outcome = await replay({ ...base, kind: "comment", action: "deleted", deliveryId: `reconcile-deleted-${gone.id}`, sender: author, comment });
    changes.push(`${repo}#${issue.number}: comment ${gone.id} of @${gone.by} is gone from GitHub: ${describeOutcome(outcome)}`);
  }

  const open = await services.gates.lastGate(ref);
  if (open?.state === "open" && issue.state === "closed") {
    const outcome = await replay({ ...base, kind: "closed", deliveryId: `reconcile-closed-${issue.number}`, sender: { login: "reconcile", type: "Bot" } });
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
      const outcome = await replay({
        ...base,
        kind: "comment",
        action: "created",
        deliveryId: `reconcile-${comment.id}`,
        sender: userOf(comment),
        comment: commentOf(comment),
      });
      if (recordsChange(outcome))
        changes.push(`${repo}#${issue.number}: replayed comment ${comment.id} by @${comment.user.login}: ${describeOutcome(outcome)}`);
      const now = await services.gates.getGate(open.id);
      if (now?.state !== "open") break;
    }
  }
  return changes;
}

/**
 * The status comment's record, completed from the issue's timeline for the asks Redis lost that it
 * holds no settled outcome of: a happy round trip writes no status comment, only the awaiting label
 * on and off (README, "GitHub's limits"). Reads the issue's events only when such an ask exists.
 */
async function withTimelineIfNeeded(
  services: Services,
  octokit: InstallationOctokit,
  where: { owner: string; name: string; number: number },
  asks: ReadonlyArray<{ comment: CommentSnapshot; ask: Ask }>,
  /** The replies, each in its author's own words; read only when the timeline is. */
  readReplies: () => Promise<readonly CommentSnapshot[]>,
  state: StatusState | undefined,
  settings: RepoSettings,
  mayAnswer: (login: string, type: string) => Promise<boolean>,
): Promise<StatusState | undefined> {
  const settled = new Set(["resumed", "superseded", "cancelled"]);
  let needed = false;
  for (const { comment } of asks) {
    const known = state?.gates.find((g) => g.id === String(comment.id));
    if (known && settled.has(known.state)) continue;
    if (!(await services.gates.getGate(String(comment.id)))) needed = true;
  }
  if (!needed) return state;
  const identity = await services.github.identity();
  const isAgent = agentLogin(identity.botLogin, services.config.agentLogins);
  const comments = await readReplies();
  const params = { owner: where.owner, repo: where.name, issue_number: where.number, per_page: 100 };
  const readEvents = async () => (await octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/events", params)) as LabelEvent[];
  const events = (await labelNeeded(services, asks.at(-1), comments, state, isAgent)) ? await readEvents() : [];
  const answerers = new Set<string>();
  const firstAsk = Date.parse(asks[0]?.comment.created_at ?? "") || 0;
  for (const c of comments) {
    if (!c.user || isAgent(c.user.login) || c.user.type === "Bot" || answerers.has(c.user.login) || Date.parse(c.created_at) < firstAsk) continue;
    if (await mayAnswer(c.user.login, c.user.type)) answerers.add(c.user.login);
  }
  const resumed = resumedOnTimeline({
    asks,
    comments,
    events,
    appLogin: identity.botLogin,
    awaitingLabel: settings.labels.awaiting,
    isAnswerer: (c: TimelineComment) => c.user !== null && answerers.has(c.user.login),
    recorded: (id) => ["answered", "resuming"].includes(state?.gates.find((g) => g.id === id)?.state ?? ""),
    approvalRule: (ask) => approvalRule(ask, settings),
  });
  return withTimeline(state, resumed);
}

/**
 * Whether the label's changes can tell anything of the newest ask: only it is judged by them (an older
 * ask ends where the next begins), and only when Redis lost its gate, the record holds it answered or
 * a person (no agent, no bot) wrote after it. Otherwise it is open whatever the events say, and the
 * usual rebuild of a waiting question (a comments page) costs no read of them.
 */
async function labelNeeded(
  services: Pick<Services, "gates">,
  newest: { comment: CommentSnapshot } | undefined,
  comments: readonly CommentSnapshot[],
  state: StatusState | undefined,
  isAgent: (login: string) => boolean,
): Promise<boolean> {
  if (!newest || (await services.gates.getGate(String(newest.comment.id)))) return false;
  const known = state?.gates.find((g) => g.id === String(newest.comment.id));
  if (known) return true;
  const askedAt = Date.parse(newest.comment.created_at);
  const byPerson = (c: CommentSnapshot) => c.user !== null && !isAgent(c.user.login) && c.user.type !== "Bot";
  return comments.some((c) => c.id !== newest.comment.id && byPerson(c) && Date.parse(c.created_at) >= askedAt - 1000);
}

/** Whether Redis lacks what the status record restores: the issue's status comment, or the gate of an ask. */
async function recordNeeded(
  services: Pick<Services, "gates" | "issues">,
  ref: { repo: string; issue: number },
  comments: readonly CommentSnapshot[],
  isAgent: (login: string) => boolean,
): Promise<boolean> {
  if (!(await services.issues.getIssue(ref))?.statusCommentId) return true;
  for (const c of comments) {
    if (c.user && isAgent(c.user.login) && c.body && safeAsk(c.body) && !(await services.gates.getGate(String(c.id)))) return true;
  }
  return false;
}

function hasLabel(labels: readonly string[], name: string): boolean {
  return labels.some((l) => l.toLowerCase() === name.toLowerCase());
}

/** When an ask comment was edited, if it was (GitHub's timestamps have whole seconds: a later second). */
function editedAt(comment: CommentSnapshot): number | undefined {
  const created = Date.parse(comment.created_at);
  const updated = Date.parse(comment.updated_at ?? "");
  return updated > created ? updated : undefined;
}

/** Per gate, the reminder-ladder steps whose comments the app posted on the issue. */
function ladderStepsShown(comments: readonly CommentSnapshot[], isApp: (login: string) => boolean, seal: MarkerSeal): Map<string, number[]> {
  const shown = new Map<string, number[]>();
  for (const c of comments) {
    if (!c.user || !isApp(c.user.login) || !c.body) continue;
    const reading = readLadderMarker(c.body, seal);
    const marker = reading.outcome === "valid" ? reading.marker : undefined;
    if (marker) shown.set(marker.gate, [...(shown.get(marker.gate) ?? []), marker.step]);
  }
  return shown;
}

function safeAsk(body: string): Ask | undefined {
  try {
    return parseAskComment(body);
  } catch (error) {
    if (error instanceof ProtocolError) return undefined;
    throw error;
  }
}

function userOf(comment: CommentSnapshot) {
  return { login: comment.user?.login ?? "ghost", type: comment.user?.type ?? "User" };
}

function commentOf(comment: CommentSnapshot): CommentEvent["comment"] {
  return {
    id: comment.id,
    body: comment.body ?? "",
    url: comment.html_url,
    createdAt: comment.created_at,
    author: userOf(comment),
    ...(comment.in ? { in: comment.in } : {}),
  };
}

function settledGate(
  known: {
    id: string;
    state: string;
    round: number;
    answers: Omit<RecordedAnswer, "commentId">[];
    answeredBy?: string;
    answeredAt?: number;
    answerCommentId?: number;
    reason?: string;
    withdrawn?: Withdrawal[];
  },
  comment: CommentSnapshot,
  ask: Ask,
  installationId: number,
  repo: string,
  issue: number,
): Gate {
  return {
    id: known.id,
    repo,
    issue,
    installationId,
    round: known.round,
    ask,
    askedAt: Date.parse(comment.created_at),
    askedBy: comment.user?.login ?? "",
    askUrl: comment.html_url,
    state: known.state as Gate["state"],
    // The status comment keeps each answer's URL, not its comment id: a later deletion must find it.
    answers: known.answers.map((a) => ({ ...a, ...(issueCommentIdOf(a.url) !== undefined ? { commentId: issueCommentIdOf(a.url) } : {}) })),
    answeredBy: known.answeredBy,
    answeredAt: known.answeredAt,
    answerCommentId: known.answerCommentId,
    ...(known.reason ? { closedReason: known.reason } : {}),
    ...(known.withdrawn?.length ? { withdrawn: known.withdrawn } : {}),
  };
}
