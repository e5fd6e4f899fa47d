import { jobIds } from "../queueNames.js";
import type { InboundEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";
import type { Outcome } from "./outcome.js";

/** What a dispatch reads and queues: the issue's open gate, the repository's settings, the spawn queue. */
export type DispatchPorts = FeedbackPorts & Pick<Services, "settings"> & { queues: Pick<Services["queues"], "addSpawn"> };

/** `/agent` or the dispatch label: spawn a round with the issue as the task, unless a question is open. */
export async function dispatch(services: DispatchPorts, event: InboundEvent, by: string, commentId?: number): Promise<Outcome> {
  const issue = await services.issues.getIssue({ repo: event.repo, issue: event.issue.number });
  if (issue?.openGate) {
    await sendFeedback(services, targetOf(event), { line: `@${by} asked for the agent, but a question is open; answer it (or \`/cancel\` it) first` });
    return { kind: "refusedWhileOpen", command: "dispatch" };
  }
  const { settings } = await services.settings(event.installationId, event.repo);
  await services.queues.addSpawn(
    {
      installationId: event.installationId,
      repo: event.repo,
      issue: event.issue.number,
      trigger: { type: "dispatch", by, commentId },
      receivedAt: event.receivedAt,
    },
    jobIds.dispatch(event.repo, event.issue.number, commentId ? `c${commentId}` : event.deliveryId),
    settings.maxAttempts,
  );
  return { kind: "dispatched" };
}
