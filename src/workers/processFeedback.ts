import type { Job } from "bullmq";
import { foldedSha256 } from "../agent/renderTask.js";
import { ANSWER_CHARS, MAX_NOTES, renderStatusComment, type StatusState } from "../protocol/statusComment.js";
import { FeedbackJobSchema, type FeedbackOp } from "../queue/jobs.js";
import type { InstallationOctokit, Services } from "../services.js";

interface Target {
  owner: string;
  repo: string;
  fullName: string;
  issue: number;
}

/**
 * Performs an issue's queued GitHub writes in order. Progress is saved after each op so a retry
 * never repeats a comment that was already posted.
 */
export async function processFeedback(services: Services, job: Job): Promise<number> {
  const data = FeedbackJobSchema.parse(job.data);
  const [owner, repo] = data.repo.split("/") as [string, string];
  const target: Target = { owner, repo, fullName: data.repo, issue: data.issue };
  const octokit = await services.github.installation(data.installationId);
  const done = typeof job.progress === "number" ? job.progress : 0;
  let writes = 0;
  for (let index = done; index < data.ops.length; index++) {
    writes += await applyOp(services, octokit, target, data.ops[index]!);
    await job.updateProgress(index + 1);
  }
  return writes;
}

async function applyOp(services: Services, octokit: InstallationOctokit, t: Target, op: FeedbackOp): Promise<number> {
  switch (op.type) {
    case "react":
      await octokit.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", {
        owner: t.owner,
        repo: t.repo,
        comment_id: op.commentId,
        content: op.content,
      });
      return 1;
    case "addLabel":
      await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", {
        owner: t.owner,
        repo: t.repo,
        issue_number: t.issue,
        labels: [op.label],
      });
      return 1;
    case "removeLabel":
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
      return 1;
    case "comment":
      await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner: t.owner,
        repo: t.repo,
        issue_number: t.issue,
        body: op.body,
      });
      return 1;
    case "status":
      return updateStatusComment(services, octokit, t, op.seq);
  }
}

/** Edits the issue's one status comment (creating it the first time). Skips when a newer render happened. */
async function updateStatusComment(services: Services, octokit: InstallationOctokit, t: Target, seq: number): Promise<number> {
  const ref = { repo: t.fullName, issue: t.issue };
  if ((await services.store.statusRendered(ref)) >= seq) return 0;
  const [lines, gates, issue, notes] = await Promise.all([
    services.store.statusLines(ref),
    services.store.issueGates(ref),
    services.store.getIssue(ref),
    services.store.notes(ref),
  ]);
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
        // The audit record of the whole text as folded, also when the text above is cut.
        sha256: a.sha256 ?? foldedSha256(a.text),
      })),
    })),
    ...(notes.length > 0
      ? {
          notes: notes.slice(-MAX_NOTES).map((n) => ({
            by: n.by,
            at: n.at,
            url: n.url,
            text: n.text.slice(0, ANSWER_CHARS),
            round: n.round,
            sha256: n.sha256 ?? foldedSha256(n.text),
          })),
        }
      : {}),
  };
  const body = renderStatusComment(lines, state);
  let commentId = issue?.statusCommentId;
  if (commentId) {
    try {
      await octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner: t.owner, repo: t.repo, comment_id: commentId, body });
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
      commentId = undefined; // someone deleted it: post a new one
    }
  }
  if (!commentId) {
    const { data } = await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: t.owner,
      repo: t.repo,
      issue_number: t.issue,
      body,
    });
    await services.store.setStatusCommentId(ref, Number(data.id));
  }
  await services.store.setStatusRendered(ref, lines.length);
  return 1;
}
