import type { RepoSettings, ReminderStep } from "../config/repoConfig.js";
import type { Gate } from "../domain.js";
import { sealOf } from "../protocol/marker.js";
import { renderOverdueComment, renderReminderComment } from "../protocol/reminders.js";
import type { LadderJob } from "../payloads.js";
import type { Services } from "../services/services.js";
import { defaultAnswers, type AnswerPorts } from "./answerGate.js";
import { sendFeedback } from "../status/feedback.js";
import type { Outcome } from "./outcome.js";
import { takeDefaults } from "./timeouts.js";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/** What a due step of the ladder reads and writes: the gate and its posted steps, the repository's settings, the answers it takes. */
export type LadderPorts = AnswerPorts &
  Pick<Services, "settings"> & {
    gates: Pick<Services["gates"], "markOverdue" | "ladderStepPosted" | "markLadderStepsPosted">;
    config: Pick<Services["config"], "stateKey">;
  };

/**
 * Schedules every step of the repository's reminder ladder as a delayed job, timed from the ask (a
 * rebuild after Redis loss therefore schedules the same times; steps already due run at once and
 * skip what the issue already shows). Nothing waits in a process: an answer leaves the steps to
 * find the gate closed.
 */
export async function scheduleLadder(
  services: { queues: Pick<Services["queues"], "addLadderStep"> },
  gate: Gate,
  ladder: readonly ReminderStep[],
): Promise<void> {
  for (const [step, rung] of ladder.entries()) {
    const job: LadderJob = { gateId: gate.id, step, ...(rung.mention ? { mention: rung.mention } : {}), ...(rung.then ? { then: rung.then } : {}) };
    await services.queues.addLadderStep(job, gate.askedAt + rung.afterSeconds * 1000 - Date.now());
  }
}

/** A step of a gate's reminder ladder is due: a reminder, or (the last) the defaults or the overdue mark. */
export async function processLadderStep(services: LadderPorts, job: LadderJob): Promise<Outcome> {
  const gate = await services.gates.getGate(job.gateId);
  if (gate?.state !== "open") return { kind: "gateNoLongerOpen" };
  const { settings } = await services.settings(gate.installationId, gate.repo);
  const unanswered = gate.ask.questions.map((_, i) => i).filter((i) => !gate.answers.some((a) => a.question === i));
  if (job.then === undefined) return remind(services, gate, job, unanswered, settings);
  let outcome: Outcome = { kind: "nothingDue" };
  const defaults = job.then === "default" ? defaultAnswers(gate, "escalation", Date.now(), "default", unanswered) : [];
  if (defaults.length > 0) outcome = await takeDefaults(services, gate, defaults, `ladder-${gate.id}-${job.step}`);
  const withoutDefault = unanswered.filter((i) => !defaults.some((a) => a.question === i));
  if (withoutDefault.length === 0) return outcome;
  const now = Date.now();
  // Marked first: a rebuild that finds the overdue comment already posted must still mark the gate.
  if (!(await services.gates.markOverdue(gate.id, now))) return outcome;
  await postOnce(
    services,
    gate,
    job.step,
    renderOverdueComment(
      { gateId: gate.id, step: job.step, questions: withoutDefault.map((i) => gate.ask.questions[i]!.text), at: iso(now), askUrl: gate.askUrl },
      sealOf(services.config.stateKey, gate),
    ),
    `gate ${gate.id} is overdue: the reminder ladder ran out without an answer`,
  );
  return { kind: "overdue" };
}

async function remind(services: LadderPorts, gate: Gate, job: LadderJob, unanswered: number[], settings: RepoSettings): Promise<Outcome> {
  const issue = await services.issues.getIssue(gate);
  const people = new Set<string>();
  for (const who of job.mention ?? []) {
    if (who === "assignees") for (const login of issue?.assignees.length ? issue.assignees : settings.answerers.users) people.add(`@${login}`);
    else if (who === "answerers") for (const handle of [...settings.answerers.users, ...settings.answerers.teams]) people.add(`@${handle}`);
    else people.add(who);
  }
  const body = renderReminderComment(
    {
      gateId: gate.id,
      step: job.step,
      people: [...people],
      questions: unanswered.map((i) => gate.ask.questions[i]!.text),
      waitedSeconds: (Date.now() - gate.askedAt) / 1000,
      askUrl: gate.askUrl,
    },
    sealOf(services.config.stateKey, gate),
  );
  return (await postOnce(services, gate, job.step, body, `reminder ${job.step + 1} for gate ${gate.id}${people.size ? ` to ${[...people].join(" ")}` : ""}`))
    ? { kind: "reminded" }
    : { kind: "alreadyReminded" };
}

/** Posts a step's comment unless the issue already shows it (a retried job, or a rebuild after Redis loss). */
async function postOnce(services: LadderPorts, gate: Gate, step: number, body: string, statusLine: string): Promise<boolean> {
  if (await services.gates.ladderStepPosted(gate.id, step)) return false;
  const target = { installationId: gate.installationId, repo: gate.repo, issue: gate.issue };
  await sendFeedback(services, target, { ops: [{ type: "comment", body }], line: statusLine, key: `ladder-${gate.id}-${step}` });
  await services.gates.markLadderStepsPosted(gate.id, [step]);
  return true;
}
