import { recordedAnswers } from "./recordedAnswers.js";
import type { RepoSettings } from "../config/repoConfig.js";
import type { Gate } from "../domain.js";
import { appMentionNames } from "../protocol/addressing.js";
import { parseReply } from "../protocol/reply.js";
import type { CommentEvent, PushedEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { sendFeedback, targetOf, type FeedbackPorts, type IssueTarget } from "../status/feedback.js";
import { reportHiddenContent, type HiddenContentPorts } from "./hiddenContent.js";
import type { Outcome } from "./outcome.js";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/** What superseding a question touches: the issue's open gate, the observers, the issue's feedback. */
export type StaleQuestionPorts = FeedbackPorts & Pick<Services, "events"> & { gates: Pick<Services["gates"], "getGate" | "supersedeGate"> };

/** What recording an answer to a superseded question touches. */
export type SupersededAnswerPorts = HiddenContentPorts & {
  gates: Pick<Services["gates"], "recordSupersededAnswer">;
  github: Pick<Services["github"], "identity">;
};

/**
 * A question that no longer stands: its comment was edited (the agent's words are no longer what
 * was asked), or new commits landed on its pull request after it was asked. The gate is superseded:
 * an answer to it is kept but resumes nothing (a newer question superseding an older one is
 * OPEN_GATE's part).
 */
async function supersede(services: StaleQuestionPorts, target: IssueTarget, gate: Gate, reason: string, settings: RepoSettings): Promise<boolean> {
  if (!(await services.gates.supersedeGate(gate, reason))) return false;
  services.events.notify("gate.closed", { gate, state: "superseded", reason });
  await tellSuperseded(services, target, gate.id, reason, settings);
  return true;
}

/** What the issue is told of a superseded gate (here, or restored so by a rebuild): its label comes off, the status log says why. */
export async function tellSuperseded(services: FeedbackPorts, target: IssueTarget, gateId: string, reason: string, settings: RepoSettings): Promise<void> {
  await sendFeedback(services, target, {
    ops: [{ type: "removeLabel", label: settings.labels.awaiting }],
    line: `gate ${gateId} superseded: ${reason}; an answer to it will be recorded but not resumed`,
  });
}

/** The agent's question comment was edited. */
export async function questionEdited(services: StaleQuestionPorts, event: CommentEvent, settings: RepoSettings): Promise<Outcome> {
  const gate = await services.gates.getGate(String(event.comment.id));
  if (gate?.state !== "open") return { kind: "ignored", reason: "edit of a question that is not open" };
  const reason = `the question was edited at ${iso(event.receivedAt)}`;
  return (await supersede(services, targetOf(event), gate, reason, settings))
    ? { kind: "gateSuperseded", why: "question edited" }
    : { kind: "ignored", reason: "gate already settled" };
}

/** New commits on a pull request whose open question was asked before them. */
export async function commitsPushed(services: StaleQuestionPorts, event: PushedEvent, settings: RepoSettings): Promise<Outcome> {
  if (!event.issue.isPullRequest) return { kind: "ignored", reason: "not a pull request" };
  const issue = await services.issues.getIssue({ repo: event.repo, issue: event.issue.number });
  const gate = issue?.openGate ? await services.gates.getGate(issue.openGate) : undefined;
  if (gate?.state !== "open") return { kind: "ignored", reason: "no open question" };
  // GitHub's timestamps have whole seconds: a push in the ask's own second may have come before it.
  if (event.pushedAt <= gate.askedAt) return { kind: "ignored", reason: "the commits came before the question" };
  const reason = `new commits were pushed at ${iso(event.pushedAt)} (${event.headSha.slice(0, 7)})`;
  return (await supersede(services, targetOf(event), gate, reason, settings))
    ? { kind: "gateSuperseded", why: "new commits" }
    : { kind: "ignored", reason: "gate already settled" };
}

/**
 * A permitted human replied to the issue's last question after it was superseded. The first such
 * answer is recorded (a later `/agent` round sees it, marked as such) and the human is told why the
 * agent was not re-run and what to do.
 */
export async function answerSuperseded(services: SupersededAnswerPorts, event: CommentEvent, gate: Gate): Promise<Outcome | undefined> {
  await reportHiddenContent(services, event, event.comment.body);
  const parsed = parseReply(event.comment.body, gate.ask.questions, appMentionNames((await services.github.identity()).botLogin));
  if (parsed.answers.length === 0) return undefined;
  const by = event.comment.author.login;
  const at = Date.parse(event.comment.createdAt) || event.receivedAt;
  const answers = recordedAnswers(parsed.answers, event, at);
  const outcome = await services.gates.recordSupersededAnswer(gate.id, answers, by, at, event.comment.id);
  if (outcome !== "recorded" && outcome !== "same") return undefined;
  await sendFeedback(services, targetOf(event), {
    ops: [
      {
        type: "comment",
        body: `@${by} this question was superseded (${gate.closedReason ?? "it no longer stands"}); your answer was recorded but the agent was not re-run. If it still applies, comment \`/agent\` to start the agent again: its task includes your answer, marked as given to a superseded question.`,
      },
    ],
    line: `@${by} answered gate ${gate.id} after it was superseded; recorded, not resumed`,
    key: `superseded-answer-${event.comment.id}`,
  });
  return { kind: "supersededAnswerRecorded" };
}
