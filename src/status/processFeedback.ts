import type { Job } from "bullmq";
import { FeedbackJobSchema } from "../jobs/payloads.js";
import type { Services } from "../services.js";
import { BudgetedWriter, type WriterPorts } from "./budgetedWriter.js";
import { applyOp, type FeedbackOpPorts } from "./feedbackOps.js";
import { issueOf, writeTarget } from "./writeTarget.js";

/** What the feedback worker uses: the installation's client, the feedback queue, and what the writer and each op use. */
export type FeedbackPorts = WriterPorts & FeedbackOpPorts & Pick<Services, "github" | "queues">;

/**
 * Performs an issue's queued GitHub writes in order. Progress is saved after each op so a retry
 * never repeats a comment that was already posted. Every write first takes a slot of the
 * installation's write budget; when there is none (the budget is spent, or GitHub asked the app to
 * stop), the job goes back to the queue, delayed until one frees, and carries on from the op it
 * stopped at: nothing is dropped, no attempt is used up, and an issue's writes keep their order
 * (a job waits behind the issue's earlier jobs still to run: see takeTurn). Label changes that a
 * later state makes moot are skipped (coalesced), not sent. Spawning never waits for any of this.
 * Each op is performed in feedbackOps.ts, each write sent by budgetedWriter.ts.
 */
export async function processFeedback(services: FeedbackPorts, job: Job, token?: string): Promise<number> {
  const data = FeedbackJobSchema.parse(job.data);
  const target = writeTarget(data.repo, data.issue);
  const ref = issueOf(target);
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
