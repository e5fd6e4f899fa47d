import type { AgentRun } from "../agent/runAgent.js";
import { maskSecrets } from "../agent/maskSecrets.js";
import type { Gate } from "../domain.js";
import { formatDuration } from "../protocol/duration.js";
import type { FeedbackOp, SpawnJob } from "../payloads.js";

/**
 * What a round writes on the issue when its agent starts and ends: the status comment's lines, the 🚀
 * acknowledgement, and the failed agent's output for the question that follows. Pure, so their wording
 * is tested without running a round (run.ts and settle.ts send them; the 🚀, once.ts's acknowledgeStart).
 */

/**
 * 🚀 on the `/agent` or `/retry` comment that dispatched the round. A resume writes nothing at its
 * start: the awaiting label comes off when the round ends (see README, "GitHub's limits").
 */
export function startAcknowledgements(data: SpawnJob, gate: Gate | undefined): FeedbackOp[] {
  const commentId = !gate && data.trigger.type === "dispatch" ? data.trigger.commentId : undefined;
  return commentId ? [{ type: "react", commentId, content: "rocket" }] : [];
}

/**
 * `runner`: the RUNNER_NAME of the process running it, named where runners are apart from the app
 * (ROLE=runner). `again`: an earlier start of this attempt did not finish (its runner died, or shut
 * down and put the round back), so this is a new start of it.
 */
export function startLine(round: number, data: SpawnJob, gate: Gate | undefined, attempt: number, runner?: string, again = false): string {
  const notes = [...(attempt > 1 ? [`attempt ${attempt}`] : []), ...(again ? ["started again: the earlier start did not finish"] : [])];
  const suffix = `${runner ? ` on runner ${runner}` : ""}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
  if (gate) {
    const by = gate.answeredBy === "escalation" ? "the defaults taken at timeout" : `the answer of @${gate.answeredBy ?? "unknown"}`;
    return `round ${round}: agent started with ${by} to gate ${gate.id}${suffix}`;
  }
  if (data.trigger.type === "dispatch") return `round ${round}: agent started (${data.trigger.retry ? "retry" : "dispatched"} by @${data.trigger.by})${suffix}`;
  return `round ${round}: agent started${suffix}`;
}

/** `suffix` belongs to the summary line: after the output's closing fence it would keep the fence open. */
export function endLine(round: number, run: AgentRun, secrets: string[], suffix = ""): string {
  const took = formatDuration(run.durationMs / 1000);
  if (!run.failed) return `round ${round}: agent finished (exit 0, ${took})${suffix}`;
  const why = run.timedOut ? "timed out and was stopped" : run.signal ? `was killed by ${run.signal}` : `failed (exit ${run.exitCode})`;
  const tail =
    run.tail.length > 0 ? `\n\n  \`\`\`text\n${run.tail.map((l) => `  ${maskSecrets(l, secrets).replace(/```/g, "ʼʼʼ")}`).join("\n")}\n  \`\`\`` : "";
  return `round ${round}: agent ${why} after ${took}${suffix}${tail}`;
}

/** The end of a round a person stopped (`/stop`, or closing the issue): `how` is the StopRequest's own words. */
export function stoppedLine(round: number, how: string, run: AgentRun, suffix: string): string {
  return `round ${round}: agent ${how} (after ${formatDuration(run.durationMs / 1000)})${suffix}`;
}

/** The question's details once the agent failed its last attempt: its last output lines, the token masked. */
export function failureDetails(run: AgentRun, secrets: string[]): string {
  const tail = run.tail.map((line) => maskSecrets(line, secrets)).join("\n");
  return `Last output lines:\n\n\`\`\`text\n${tail.replace(/```/g, "ʼʼʼ") || "(no output)"}\n\`\`\``;
}
