import type { FeedbackOp } from "../payloads.js";
import { sendFeedback } from "../status/feedback.js";
import { openWorkspace } from "./checkout.js";
import type { ClaimedRound, PreparedRound } from "./context.js";
import { prepareRoundInputs } from "./inputs.js";
import { finishRound, issueFromGitHub } from "./once.js";
import type { Skipped } from "./outcome.js";

/**
 * The round's second step: everything the agent starts with. The issue (from GitHub when Redis lost
 * it), the whole question-and-answer history with the answer this round resumes, the issue's checkout
 * when the workspace is on (a repository that refuses it ends the round, told on the issue), and the
 * task, files, command line and environment (src/round/inputs.ts).
 */
export async function prepareRound(claimed: ClaimedRound): Promise<PreparedRound | Skipped> {
  const { services, data, job, round, gate, settings, log } = claimed;
  const issue = claimed.recorded ?? (await issueFromGitHub(services, data));
  // The answer this round resumes with is in its task even if Redis lost the history since the claim.
  const history = gate && !claimed.gates.some((g) => g.id === gate.id) ? [...claimed.gates, gate] : claimed.gates;
  const workspace = settings.workspace.enabled ? await openWorkspace(services, data, round, settings.workspace, claimed.target) : undefined;
  if (workspace?.kind === "refused") {
    log.warn({ problem: workspace.problem }, "the workspace was refused");
    await finishRound(services, claimed.ref, job.id, gate);
    const ops: FeedbackOp[] = [{ type: "comment", body: workspace.comment }, ...claimed.awaitingOff];
    await sendFeedback(services, claimed.target, {
      ops,
      line: `round ${round}: not started: the checkout needs the permission Contents: write`,
      key: `workspace-refused-${job.id}`,
    });
    return { skipped: "workspace refused", round };
  }
  const inputs = await prepareRoundInputs(services, {
    data,
    round,
    issue,
    history,
    notes: claimed.notes,
    template: claimed.template,
    command: claimed.command,
    workspace,
    pullRequest: settings.workspace.pullRequest,
  });
  return { ...claimed, issue, history, workspace, inputs };
}
