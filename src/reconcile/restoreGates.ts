/**
 * The gates of the issue's asks that Redis lost, restored one by one: as the status record (or the
 * timeline) settled them; as superseded when a newer question was asked or the newest was edited;
 * and the newest, still open on GitHub, reopened through the webhook's path so it is opened as any.
 */
import type { RepoSettings } from "../config/repoConfig.js";
import { describeOutcome } from "../gates/outcome.js";
import type { Services } from "../services/services.js";
import { tellSuperseded } from "../gates/staleQuestions.js";
import type { FeedbackPorts } from "../status/feedback.js";
import type { StatusState } from "../status/statusComment.js";
import { editedAt, type AskComment } from "./askComments.js";
import { replyCreated, type Replay, type ReplayBase } from "./replayedEvents.js";
import { settledGate } from "./settledGate.js";

/** What restoring touches: the gates, the app's record of its awaiting label, the issue's feedback. */
export type RestoreGatesPorts = FeedbackPorts & {
  gates: Pick<Services["gates"], "getGate" | "restoreGate">;
  issues: Pick<Services["issues"], "awaitingLabel" | "setAwaitingLabel">;
};

/** Returns what it changed; an ask whose gate Redis has is left alone. */
export async function restoreGates(
  services: RestoreGatesPorts,
  replay: Replay,
  base: ReplayBase,
  asks: readonly AskComment[],
  state: StatusState | undefined,
  settings: RepoSettings,
): Promise<string[]> {
  const { installationId, repo, issue } = base;
  const changes: string[] = [];
  const last = asks.at(-1);
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
      await tellSuperseded(services, { installationId, repo, issue: issue.number }, String(comment.id), reason, settings);
      changes.push(`${repo}#${issue.number}: restored gate ${comment.id} as superseded: ${reason}`);
    } else if (comment === last?.comment && issue.state === "open") {
      // GitHub shows the label the app put on before Redis lost the gate: the reopened gate's label-on write is coalesced.
      const ref = { repo, issue: issue.number };
      if (hasLabel(issue.labels, settings.labels.awaiting) && (await services.issues.awaitingLabel(ref)) === undefined) {
        await services.issues.setAwaitingLabel(ref, "on");
      }
      const outcome = await replay(replyCreated(base, comment));
      changes.push(`${repo}#${issue.number}: reopened gate ${comment.id} that Redis had lost (${describeOutcome(outcome)})`);
    } else {
      await services.gates.restoreGate({
        ...settledGate({ id: String(comment.id), state: "superseded", round: ask.round, answers: [] }, comment, ask, installationId, repo, issue.number),
        closedReason: "a newer question was asked",
      });
    }
  }
  return changes;
}

function hasLabel(labels: readonly string[], name: string): boolean {
  return labels.some((l) => l.toLowerCase() === name.toLowerCase());
}
