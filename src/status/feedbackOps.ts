import type { FeedbackOp } from "../payloads.js";
import type { Services } from "../services/services.js";
import type { InstallationOctokit } from "../github/octokit.js";
import type { BudgetedWriter } from "./budgetedWriter.js";
import { updateStatusComment, type StatusCommentPorts } from "./updateStatusComment.js";
import { issueOf, type WriteTarget } from "./writeTarget.js";

/** What performing an op reads and records: the issue's label state, its gates, the echoes of replies, and the status comment's ports. */
export type FeedbackOpPorts = Pick<Services, "issues" | "gates" | "commentMarks"> & StatusCommentPorts;

/**
 * Performs one queued feedback op on GitHub (a reaction, a label on or off, a comment, an echo
 * redacted, the status comment), each write through the job's BudgetedWriter. An op a later state
 * made moot is skipped (coalesced). Returns the writes it sent.
 */
export async function applyOp(
  services: FeedbackOpPorts,
  octokit: InstallationOctokit,
  t: WriteTarget,
  op: FeedbackOp,
  writer: BudgetedWriter,
): Promise<number> {
  const ref = issueOf(t);
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
      const { openGate, awaitingLabel: label } = await services.issues.labelState(ref);
      if (label === "on") return writer.coalesced();
      if (op.whileRound === undefined ? !openGate : !(await roundRuns(services, ref, op.whileRound))) return writer.coalesced();
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
      const { openGate, awaitingLabel: label } = await services.issues.labelState(ref);
      if (openGate || label === "off") return writer.coalesced();
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
  t: WriteTarget,
  of: number,
  body: string,
  writer: BudgetedWriter,
): Promise<number> {
  const ref = issueOf(t);
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
async function hasLabel(octokit: InstallationOctokit, t: WriteTarget, label: string): Promise<boolean> {
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
