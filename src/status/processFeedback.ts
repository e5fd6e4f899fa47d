import type { Job } from "bullmq";
import { FeedbackJobSchema, type FeedbackOp } from "../jobs/payloads.js";
import type { FeedbackTurn } from "../store/feedbackOrder.js";
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
  const turn = job.id === undefined ? undefined : await services.feedbackOrder.turnOf(ref, job.id);
  const ordered = turn !== undefined && turn.kind !== "unordered";
  const writer = new BudgetedWriter(services, data.installationId, job, token, ordered ? ref : undefined);
  if (turn?.kind === "behind") await takeTurn(services, ref, job.id!, turn, writer);
  const octokit = await services.github.installation(data.installationId);
  const done = typeof job.progress === "number" ? job.progress : 0;
  let writes = 0;
  for (let index = done; index < data.ops.length; index++) {
    const op = data.ops[index]!;
    writes += await applyOp(services, octokit, target, op, writer);
    if (!repeatable(op)) await job.updateProgress(index + 1);
  }
  if (ordered) await services.feedbackOrder.feedbackDone(ref, job.id!);
  return writes;
}

/**
 * Whether doing the op again after a retry shows nothing new, so its progress need not be saved:
 * a reaction GitHub already has, a label the issue's recorded state coalesces, the status comment
 * rendered again in place, an echo redacted again. Only a comment would be posted twice.
 */
function repeatable(op: FeedbackOp): boolean {
  return op.type !== "comment";
}

/**
 * Waits for the issue's earlier feedback jobs: a job put off for the budget comes back after a
 * later job of the same issue may already be waiting, and must still write first. An earlier job
 * that is gone, done or failed for good no longer holds the issue up.
 */
async function takeTurn(
  services: Pick<Services, "feedbackOrder" | "queues">,
  ref: { repo: string; issue: number },
  jobId: string,
  behind: Extract<FeedbackTurn, { kind: "behind" }>,
  writer: BudgetedWriter,
): Promise<void> {
  for (let turn: FeedbackTurn = behind; turn.kind === "behind"; turn = await services.feedbackOrder.turnOf(ref, jobId)) {
    const earlier = await services.queues.feedback.getJob(turn.head);
    const state = earlier ? await earlier.getState() : "unknown";
    if (state !== "completed" && state !== "failed" && state !== "unknown") await writer.waitBehind(turn.dueAt);
    await services.feedbackOrder.feedbackDone(ref, turn.head);
  }
}
