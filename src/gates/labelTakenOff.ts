import type { RepoSettings } from "../config/repoConfig.js";
import type { Gate } from "../domain.js";
import type { InboundEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts } from "../status/feedback.js";
import type { Outcome } from "./outcome.js";

type Unlabeled = Extract<InboundEvent, { kind: "unlabeled" }>;

/** What the awaiting label's watch reads and writes: the issue's gates, the app's record of its label, GitHub's labels, the issue's feedback. */
export type LabelPorts = FeedbackPorts & {
  gates: Pick<Services["gates"], "getGate" | "lastGate">;
  issues: Pick<Services["issues"], "getIssue" | "awaitingLabel" | "setAwaitingLabel">;
  github: Pick<Services["github"], "installation">;
  log: Pick<Services["log"], "warn">;
};

/**
 * A bot took the awaiting label off. The app takes it off itself only once no question is open
 * (processFeedback coalesces a removal while one is) and the round that took the last answer has
 * ended, and records it ("leaving", then "off"). So while a question still waits, or while the round
 * that took its answer still runs, with the app's record saying the label is on and GitHub showing it
 * off, this was not the app: most likely the agent, which acts as the App's bot. The gate is
 * untouched (a label is never an answer) and the label goes back on, so people still find the
 * question, and a rebuild after a Redis wipe does not read the issue's events as the round having ended.
 */
export async function labelTakenOff(services: LabelPorts, event: Unlabeled, settings: RepoSettings): Promise<Outcome> {
  if (event.label.toLowerCase() !== settings.labels.awaiting.toLowerCase()) return { kind: "ignored", reason: "other label" };
  const ref = { repo: event.repo, issue: event.issue.number };
  const issue = await services.issues.getIssue(ref);
  const waiting = issue?.openGate ? await services.gates.getGate(issue.openGate) : undefined;
  const gate: Gate | undefined = waiting?.state === "open" ? waiting : await runningRound(services, ref);
  if (!gate) return { kind: "ignored", reason: "no question waits and no round that took an answer runs" };
  // "off": the app took it off itself before this question opened (its own webhook, late); the
  // question's label-on write is still to come. "leaving": the app is taking it off now.
  const recorded = await services.issues.awaitingLabel(ref);
  if (recorded === "off" || recorded === "leaving") return { kind: "ignored", reason: "the app took it off" };
  if (await showsLabel(services, event, settings.labels.awaiting)) return { kind: "ignored", reason: "the label is on again" };
  const open = gate.state === "open";
  services.log.warn(
    { repo: event.repo, issue: event.issue.number, gate: gate.id, by: event.sender.login, state: gate.state },
    `the awaiting label was taken off under a bot's name while ${open ? "a question waits" : "the round that took its answer runs"}; putting it back`,
  );
  // GitHub no longer shows it: the label-on write must not be coalesced as already done.
  await services.issues.setAwaitingLabel(ref, "off");
  await sendFeedback(services, targetOf(event), {
    ops: [{ type: "addLabel", label: settings.labels.awaiting, ...(open ? {} : { whileRound: gate.id }) }],
    line: open
      ? `the label \`${settings.labels.awaiting}\` was taken off by @${event.sender.login} while gate ${gate.id} waits; the app did not do it, so it was put back (the question still waits for a human)`
      : `the label \`${settings.labels.awaiting}\` was taken off by @${event.sender.login} while the round that took gate ${gate.id}'s answer runs; the app did not do it, so it was put back (it comes off when that round ends)`,
    key: `relabel-${event.deliveryId}`,
  });
  return { kind: "labelPutBack", gateId: gate.id, while: open ? "a question waits" : "the answered round runs" };
}

/** The issue's newest gate while the round that takes its answer is still to end (answered, or claimed by its spawn). */
async function runningRound(services: Pick<LabelPorts, "gates">, ref: { repo: string; issue: number }): Promise<Gate | undefined> {
  const last = await services.gates.lastGate(ref);
  return last && (last.state === "answered" || last.state === "resuming") ? last : undefined;
}

/** Whether the issue carries the label now (a read, outside the write budget). */
async function showsLabel(services: Pick<LabelPorts, "github">, event: Unlabeled, label: string): Promise<boolean> {
  const [owner, repo] = event.repo.split("/") as [string, string];
  const octokit = await services.github.installation(event.installationId);
  const labels = (await octokit.paginate("GET /repos/{owner}/{repo}/issues/{issue_number}/labels", {
    owner,
    repo,
    issue_number: event.issue.number,
    per_page: 100,
  })) as Array<{ name: string }>;
  return labels.some((l) => l.name.toLowerCase() === label.toLowerCase());
}
