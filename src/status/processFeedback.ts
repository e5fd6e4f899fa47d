import { DelayedError, type Job } from "bullmq";
import { foldedSha256 } from "../agent/renderTask.js";
import { limitSignalOf, WriteBudget } from "../github/writeBudget.js";
import { ANSWER_CHARS, MAX_NOTES, MAX_ROUNDS_SHOWN, renderStatusComment, type StatusState } from "./statusComment.js";
import { sealOf } from "../protocol/marker.js";
import { FeedbackJobSchema, type FeedbackOp } from "../jobs/payloads.js";
import type { Services } from "../services.js";
import type { HumanNote } from "../domain.js";
import type { InstallationOctokit } from "../github/octokit.js";

interface Target {
  owner: string;
  repo: string;
  fullName: string;
  issue: number;
}

/**
 * Performs an issue's queued GitHub writes in order. Progress is saved after each op so a retry
 * never repeats a comment that was already posted. Every write first takes a slot of the
 * installation's write budget; when there is none (the budget is spent, or GitHub asked the app to
 * stop), the job goes back to the queue, delayed until one frees, and carries on from the op it
 * stopped at: nothing is dropped, no attempt is used up, and an issue's writes keep their order
 * (a job waits behind the issue's earlier jobs still to run: see takeTurn). Label changes that a
 * later state makes moot are skipped (coalesced), not sent. Spawning never waits for any of this.
 */
export async function processFeedback(services: Services, job: Job, token?: string): Promise<number> {
  const data = FeedbackJobSchema.parse(job.data);
  const [owner, repo] = data.repo.split("/") as [string, string];
  const target: Target = { owner, repo, fullName: data.repo, issue: data.issue };
  const ref = { repo: data.repo, issue: data.issue };
  const ordered = job.id !== undefined && (await services.feedbackOrder.isQueuedFeedback(ref, job.id));
  const writer = new BudgetedWriter(services, data.installationId, job, token, ordered ? ref : undefined);
  if (ordered) await takeTurn(services, ref, job, writer);
  const octokit = await services.github.installation(data.installationId);
  const done = typeof job.progress === "number" ? job.progress : 0;
  let writes = 0;
  for (let index = done; index < data.ops.length; index++) {
    writes += await applyOp(services, octokit, target, data.ops[index]!, writer);
    await job.updateProgress(index + 1);
  }
  if (ordered) await services.feedbackOrder.feedbackDone(ref, job.id!);
  return writes;
}

/**
 * Waits for the issue's earlier feedback jobs: a job put off for the budget comes back after a
 * later job of the same issue may already be waiting, and must still write first. An earlier job
 * that is gone, done or failed for good no longer holds the issue up.
 */
async function takeTurn(
  services: Pick<Services, "feedbackOrder" | "queues">,
  ref: { repo: string; issue: number },
  job: Job,
  writer: BudgetedWriter,
): Promise<void> {
  for (;;) {
    const head = await services.feedbackOrder.feedbackHead(ref);
    if (!head || head.jobId === job.id) return;
    const earlier = await services.queues.feedback.getJob(head.jobId);
    const state = earlier ? await earlier.getState() : "unknown";
    if (state === "completed" || state === "failed" || state === "unknown") {
      await services.feedbackOrder.feedbackDone(ref, head.jobId);
      continue;
    }
    await writer.waitBehind(head.dueAt);
  }
}

/** Raised (without a token to delay the job with) so BullMQ retries the job later. */
class WritesDeferred extends Error {
  override name = "WritesDeferred";
}

/** Sends one GitHub write within the installation's budget, or puts the job off until it may. */
class BudgetedWriter {
  private readonly budget: WriteBudget;

  constructor(
    private readonly services: Services,
    private readonly installationId: number,
    private readonly job: Job,
    private readonly token: string | undefined,
    /** The issue, when this job is in its write order: its followers then wait until after it. */
    private readonly ordered?: { repo: string; issue: number },
  ) {
    this.budget = new WriteBudget(services.writeBudgetLog, services.config.githubWrites);
  }

  /** An earlier job of the issue is still to write (put off until `dueAt`, if known): go after it. */
  async waitBehind(dueAt: number | undefined): Promise<never> {
    const ms = dueAt !== undefined && dueAt > Date.now() ? dueAt - Date.now() + 50 : 500;
    return this.putOff(ms, "an earlier write to the issue goes first");
  }

  async send<T>(request: () => Promise<T>): Promise<T> {
    const grant = await this.budget.take(this.installationId);
    if (!grant.granted) {
      this.services.events.notify("github.write", { installationId: this.installationId, outcome: "deferred" });
      return this.putOff(grant.waitMs, grant.reason === "paused" ? "GitHub asked the app to stop writing" : `the write budget per ${grant.reason} is spent`);
    }
    try {
      const result = await request();
      this.services.events.notify("github.write", { installationId: this.installationId, outcome: "written" });
      await this.budget.succeeded(this.installationId);
      return result;
    } catch (error) {
      const signal = limitSignalOf(error);
      if (!signal) throw error;
      const pauseMs = await this.budget.limited(this.installationId, signal);
      this.services.events.notify("github.write", { installationId: this.installationId, outcome: "limited" });
      this.services.log.warn(
        { installation: this.installationId, status: (error as { status?: number }).status, kind: signal.kind, retryAfter: signal.retryAfterSeconds, pauseMs },
        "GitHub rate-limited the app's writes; no write for this installation until the pause ends",
      );
      return this.putOff(pauseMs, `GitHub's ${signal.kind} rate limit`);
    } finally {
      await this.budget.sent(this.installationId, grant.ticket);
    }
  }

  /** A write that a later state made moot was not sent. */
  coalesced(): number {
    this.services.events.notify("github.write", { installationId: this.installationId, outcome: "coalesced" });
    return 0;
  }

  private async putOff(ms: number, why: string): Promise<never> {
    if (this.token === undefined) throw new WritesDeferred(`${why}: retry in ${ms} ms`);
    const dueAt = Date.now() + ms;
    if (this.ordered && this.job.id) await this.services.feedbackOrder.feedbackPutOff(this.ordered, this.job.id, dueAt);
    await this.job.moveToDelayed(dueAt, this.token);
    throw new DelayedError(`${why}: delayed ${ms} ms`);
  }
}

async function applyOp(services: Services, octokit: InstallationOctokit, t: Target, op: FeedbackOp, writer: BudgetedWriter): Promise<number> {
  const ref = { repo: t.fullName, issue: t.issue };
  switch (op.type) {
    case "react":
      await writer.send(() =>
        octokit.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", {
          owner: t.owner,
          repo: t.repo,
          comment_id: op.commentId,
          content: op.content,
        }),
      );
      return 1;
    case "addLabel": {
      // The question was answered (or closed) before the label could go on: it would only come off
      // again. Or the app's label is still on (a question replacing another, a round that asked again).
      const [issue, label] = await Promise.all([services.issues.getIssue(ref), services.issues.awaitingLabel(ref)]);
      if (label === "on") return writer.coalesced();
      if (op.whileRound === undefined ? !issue?.openGate : !(await roundRuns(services, ref, op.whileRound))) return writer.coalesced();
      await writer.send(() =>
        octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", {
          owner: t.owner,
          repo: t.repo,
          issue_number: t.issue,
          labels: [op.label],
        }),
      );
      await services.issues.setAwaitingLabel(ref, "on");
      return 1;
    }
    case "removeLabel": {
      // A newer question is open: the label stays. The app never put it on (or took it off): nothing to do.
      const [issue, label] = await Promise.all([services.issues.getIssue(ref), services.issues.awaitingLabel(ref)]);
      if (issue?.openGate || label === "off") return writer.coalesced();
      if (label === undefined && !(await hasLabel(octokit, t, op.label))) {
        await services.issues.setAwaitingLabel(ref, "off");
        return writer.coalesced();
      }
      // Its webhook may come before "off" is written: it must not be taken for someone else's.
      await services.issues.setAwaitingLabel(ref, "leaving");
      await writer.send(async () => {
        try {
          await octokit.request("DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", {
            owner: t.owner,
            repo: t.repo,
            issue_number: t.issue,
            name: op.label,
          });
        } catch (error) {
          if ((error as { status?: number }).status !== 404) throw error; // already gone is fine
        }
      });
      await services.issues.setAwaitingLabel(ref, "off");
      return 1;
    }
    case "comment": {
      const { data } = await writer.send(() =>
        octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
          owner: t.owner,
          repo: t.repo,
          issue_number: t.issue,
          body: op.body,
        }),
      );
      if (op.echoOf !== undefined) await services.commentMarks.rememberEcho(ref, op.echoOf, Number(data.id));
      return 1;
    }
    case "redactEcho":
      return redactEchoes(services, octokit, t, op.of, op.body, writer);
    case "status":
      return updateStatusComment(services, octokit, t, op.seq, writer);
  }
}

/** Replaces the app's comments that quote a withdrawn or edited reply (one already deleted is fine). */
async function redactEchoes(
  services: Pick<Services, "commentMarks">,
  octokit: InstallationOctokit,
  t: Target,
  of: number,
  body: string,
  writer: BudgetedWriter,
): Promise<number> {
  const ref = { repo: t.fullName, issue: t.issue };
  const ids = await services.commentMarks.echoes(ref, of);
  if (ids.length === 0) return writer.coalesced();
  for (const id of ids) {
    await writer.send(async () => {
      try {
        await octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner: t.owner, repo: t.repo, comment_id: id, body });
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error;
      }
    });
  }
  await services.commentMarks.forgetEchoes(ref, of); // after the edits: a retried job redacts what is left
  return ids.length;
}

/** Whether the round that takes `gateId`'s answer is still to end (the issue's newest gate, answered and not yet resumed). */
async function roundRuns(services: Pick<Services, "gates">, ref: { repo: string; issue: number }, gateId: string): Promise<boolean> {
  const last = await services.gates.lastGate(ref);
  return last?.id === gateId && (last.state === "answered" || last.state === "resuming");
}

/** Whether the issue carries the label now (a read: not part of the write budget), looking through every page. */
async function hasLabel(octokit: InstallationOctokit, t: Target, label: string): Promise<boolean> {
  const pages = octokit.paginate.iterator("GET /repos/{owner}/{repo}/issues/{issue_number}/labels", {
    owner: t.owner,
    repo: t.repo,
    issue_number: t.issue,
    per_page: 100,
  });
  for await (const { data } of pages) {
    if (data.some((l) => l.name.toLowerCase() === label.toLowerCase())) return true;
  }
  return false;
}

/** Edits the issue's one status comment (creating it the first time). Skips when a newer render happened. */
async function updateStatusComment(
  services: Pick<Services, "config" | "gates" | "issues" | "notes" | "rounds" | "statusLog">,
  octokit: InstallationOctokit,
  t: Target,
  seq: number,
  writer: BudgetedWriter,
): Promise<number> {
  const ref = { repo: t.fullName, issue: t.issue };
  // From here on, a new line schedules the next render; this one shows every line appended so far,
  // and is skipped only when a render since has shown them all (not merely line `seq`).
  await services.statusLog.clearStatusPending(ref);
  const [lines, gates, issue, notes, rendered, rounds] = await Promise.all([
    services.statusLog.statusLines(ref),
    services.gates.issueGates(ref),
    services.issues.getIssue(ref),
    services.notes.notes(ref),
    services.statusLog.statusRendered(ref),
    services.rounds.roundTimings(ref),
  ]);
  if (rendered >= Math.max(seq, lines.length)) return writer.coalesced();
  const state: StatusState = {
    v: 1,
    nextRound: issue?.nextRound ?? 0,
    gates: gates.slice(-50).map((g) => ({
      id: g.id,
      state: g.state,
      round: g.round,
      answeredBy: g.answeredBy,
      answeredAt: g.answeredAt,
      answerCommentId: g.answerCommentId,
      ...(g.closedReason && (g.state === "superseded" || g.state === "cancelled") ? { reason: g.closedReason.slice(0, 200) } : {}),
      answers: g.answers.map((a) => ({
        question: a.question,
        text: a.text.slice(0, ANSWER_CHARS),
        option: a.option,
        optionIndex: a.optionIndex,
        note: a.note?.slice(0, ANSWER_CHARS),
        by: a.by,
        at: a.at,
        source: a.source,
        url: a.url,
        ...(a.about ? { about: a.about } : {}),
        ...(a.deletedBy ? { deletedBy: a.deletedBy } : {}),
        // The audit record of the whole text as folded, also when the text above is cut.
        sha256: a.sha256 ?? foldedSha256(a.text),
        ...(a.approval
          ? {
              approval: {
                ...a.approval,
                votes: a.approval.votes.slice(0, 50).map((v) => ({ ...v, ...(v.note ? { note: v.note.slice(0, ANSWER_CHARS) } : {}) })),
              },
            }
          : {}),
      })),
      ...(g.withdrawn?.length ? { withdrawn: g.withdrawn.slice(-20) } : {}),
    })),
    ...(notes.length > 0
      ? {
          notes: notes.slice(-MAX_NOTES).map(shownNote),
        }
      : {}),
    ...(rounds.length > 0 ? { rounds: rounds.slice(-MAX_ROUNDS_SHOWN) } : {}),
  };
  const seal = sealOf(services.config.stateKey, ref);
  // The record names the comment it is written into and its place among the renders, so a rebuild
  // takes neither a copy of it elsewhere nor an older render put back (src/status/statusRecord.ts).
  const bound = async (comment: number) =>
    renderStatusComment(lines, { ...state, comment, seq: await services.statusLog.nextStatusSeq(ref, Date.now()) }, seal);
  let commentId = issue?.statusCommentId;
  let written = 1;
  if (commentId) {
    const body = await bound(commentId);
    try {
      await writer.send(() =>
        octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner: t.owner, repo: t.repo, comment_id: commentId!, body }),
      );
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
      commentId = undefined; // someone deleted it: post a new one
    }
  }
  if (!commentId) {
    // Its id is known only once posted: posted without the record, then edited to hold it.
    const { data } = await writer.send(() =>
      octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner: t.owner,
        repo: t.repo,
        issue_number: t.issue,
        body: renderStatusComment(lines, state, undefined),
      }),
    );
    const id = Number(data.id);
    await services.statusLog.setStatusCommentId(ref, id);
    const body = await bound(id);
    await writer.send(() =>
      octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner: t.owner, repo: t.repo, comment_id: id, body }),
    );
    written = 2;
  }
  await services.statusLog.setStatusRendered(ref, lines.length);
  return written;
}

/** A note as the status record keeps it: a withdrawn note keeps no text, a long one is cut, its digest kept whole. */
function shownNote(n: HumanNote): NonNullable<StatusState["notes"]>[number] {
  if (n.withdrawn) return { by: n.by, at: n.at, url: n.url, text: "", round: n.round, withdrawn: true as const };
  return {
    by: n.by,
    at: n.at,
    url: n.url,
    text: n.text.slice(0, ANSWER_CHARS),
    round: n.round,
    sha256: n.sha256 ?? foldedSha256(n.text),
    ...(n.deletedBy ? { deletedBy: n.deletedBy } : {}),
  };
}
