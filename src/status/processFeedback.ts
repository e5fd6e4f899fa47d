import { z } from "zod";
import { FeedbackOpSchema, type FeedbackOp } from "../payloads.js";
import type { Services } from "../services/services.js";
import { BudgetedWriter, type WriterPorts } from "./budgetedWriter.js";
import { applyOp, type FeedbackOpPorts } from "./feedbackOps.js";
import type { LaneEntry } from "./feedbackLanes.js";
import { writeTarget } from "./writeTarget.js";

/** What the feedback worker uses: the installation's client, and what the writer and each op use. */
export type FeedbackPorts = WriterPorts & FeedbackOpPorts & Pick<Services, "github">;

const OpsSchema = z.array(FeedbackOpSchema).min(1);

/**
 * Performs a lane entry's GitHub writes in order, from where an earlier try stopped. Progress is
 * saved after each op that would show twice (a comment) and has ops after it, so a later op's
 * failure never has a retry post that comment again. Every write first takes a slot of the
 * installation's write budget; when there is none (the budget is spent, or GitHub asked the app to
 * stop) WritesDeferred puts the lane's job off, the entry still first and its issue's later writes
 * behind it (src/queue/feedbackWorker.ts). Label changes that a later state makes moot are skipped
 * (coalesced), not sent. Spawning never waits for any of this. Each op is performed in
 * feedbackOps.ts, each write sent by budgetedWriter.ts.
 */
export async function processFeedback(services: FeedbackPorts, entry: LaneEntry, saveProgress: (done: number) => Promise<void>): Promise<number> {
  const ops = OpsSchema.parse(JSON.parse(entry.ops));
  const target = writeTarget(entry.repo, entry.issue);
  const writer = new BudgetedWriter(services, entry.installationId);
  const octokit = await services.github.installation(entry.installationId);
  let writes = 0;
  for (let index = entry.progress; index < ops.length; index++) {
    const op = ops[index]!;
    writes += await applyOp(services, octokit, target, op, writer);
    // After the last op the entry leaves its lane: its progress would be read by nobody.
    if (!repeatable(op) && index + 1 < ops.length) await saveProgress(index + 1);
  }
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
