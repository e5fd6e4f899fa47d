import type { Gate, RecordedAnswer } from "../domain.js";
import { questionTimeout } from "../protocol/ask.js";
import { formatDuration } from "../protocol/duration.js";
import type { Services } from "../services/services.js";
import { applyAnswers, defaultAnswers, type AnswerPorts } from "./answerGate.js";
import { sendFeedback } from "../status/feedback.js";
import type { Outcome } from "./outcome.js";

/** What a due timeout reads and writes: the gate, the repository's settings, the issue's assignees, the answers it takes. */
export type TimeoutPorts = AnswerPorts & Pick<Services, "settings"> & { queues: Pick<Services["queues"], "addTimeout"> };

/** Seconds after the ask at which each question times out (undefined: never). */
function deadlines(gate: Gate, fallbackSeconds: number | undefined): Array<number | undefined> {
  return gate.ask.questions.map((question) => questionTimeout(gate.ask, question) ?? fallbackSeconds);
}

/** Schedules the gate's next timeout after `elapsedSeconds`, if any question has one still ahead. */
export async function scheduleTimeout(
  services: { queues: Pick<Services["queues"], "addTimeout"> },
  gate: Gate,
  fallbackSeconds: number | undefined,
  elapsedSeconds = 0,
  sequence = 0,
): Promise<void> {
  const ahead = deadlines(gate, fallbackSeconds).filter((d): d is number => d !== undefined && d > elapsedSeconds);
  if (ahead.length === 0) return;
  const next = Math.min(...ahead);
  await services.queues.addTimeout(gate.id, gate.askedAt + next * 1000 - Date.now(), sequence);
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/**
 * Takes `defaults` for a gate nobody answered in time, said in a visible comment; the next task
 * marks them as an ASSUMPTION. `key` makes the answer and the comment once-only per occasion.
 */
export async function takeDefaults(services: AnswerPorts, gate: Gate, defaults: RecordedAnswer[], key: string): Promise<Outcome> {
  const target = { installationId: gate.installationId, repo: gate.repo, issue: gate.issue };
  const now = Date.now();
  const outcome = await applyAnswers(services, target, gate, defaults, { by: "escalation", commentId: `timeout-${key}`, at: now, receivedAt: now });
  if (outcome.kind === "answerRecorded" || outcome.kind === "answerPartial") {
    const taken = defaults.map((a) => (gate.ask.questions.length > 1 ? `question ${a.question + 1}: **${a.text}**` : `**${a.text}**`)).join(", ");
    await sendFeedback(services, target, {
      ops: [
        {
          type: "comment",
          body: `⏰ No answer by ${iso(now)}; proceeding with ${taken} (the default${defaults.length > 1 ? "s" : ""}). The agent is told this was an assumption. Reply \`/reopen <your answer>\` to correct it; the agent is then re-spawned with the correction.`,
        },
      ],
      line: `no answer to gate ${gate.id} by ${iso(now)}: defaults taken for ${defaults.map((a) => `question ${a.question + 1}`).join(", ")}`,
      key: `timeout-defaults-${key}`,
    });
  }
  return outcome;
}

/**
 * A gate's timeout passed. Questions with a default take it, said in a visible comment and marked
 * as an ASSUMPTION in the next task; questions without one get a reminder and the gate stays open.
 * Nothing resolves without a visible record.
 */
export async function processTimeout(services: TimeoutPorts, gateId: string, sequence: number): Promise<Outcome> {
  const gate = await services.gates.getGate(gateId);
  if (gate?.state !== "open") return { kind: "gateNoLongerOpen" };
  const target = { installationId: gate.installationId, repo: gate.repo, issue: gate.issue };
  const { settings } = await services.settings(gate.installationId, gate.repo);
  const elapsed = (Date.now() - gate.askedAt) / 1000;
  const limits = deadlines(gate, settings.defaultTimeoutSeconds);
  const expired = limits.flatMap((d, i) => (d !== undefined && d <= elapsed + 1 ? [i] : []));
  const unanswered = expired.filter((i) => !gate.answers.some((a) => a.question === i));
  const now = Date.now();
  const defaults = defaultAnswers(gate, "escalation", now, "default", unanswered);
  const withoutDefault = unanswered.filter((i) => !defaults.some((a) => a.question === i));
  let outcome: Outcome = { kind: "nothingDue" };
  if (defaults.length > 0) outcome = await takeDefaults(services, gate, defaults, `${gate.id}-${sequence}`);
  if (withoutDefault.length > 0) {
    const issue = await services.issues.getIssue(target);
    const people = (issue?.assignees.length ? issue.assignees : settings.answerers.users).map((login) => `@${login}`);
    await sendFeedback(services, target, {
      ops: [
        {
          type: "comment",
          body: `⏰ Reminder${people.length ? ` for ${people.join(" ")}` : ""}: the agent is still waiting for an answer to ${withoutDefault.map((i) => `**${gate.ask.questions[i]!.text}**`).join(", ")} (asked ${formatDuration(elapsed)} ago, no default). Nothing proceeds until someone answers.`,
        },
      ],
      line: `gate ${gate.id} timed out without a default for ${withoutDefault.length} question(s); reminder posted`,
      key: `timeout-reminder-${gate.id}-${sequence}`,
    });
    if (outcome.kind === "nothingDue") outcome = { kind: "reminded" };
  }
  const latest = (await services.gates.getGate(gate.id)) ?? gate;
  if (latest.state === "open") await scheduleTimeout(services, latest, settings.defaultTimeoutSeconds, elapsed + 1, sequence + 1);
  return outcome;
}
