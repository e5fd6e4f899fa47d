import { recordedAnswers } from "./recordedAnswers.js";
import { APPROVAL_KIND, type Gate, type RecordedAnswer } from "../domain.js";
import { appMentionNames } from "../protocol/addressing.js";
import { renderLateVote } from "../protocol/approval.js";
import { echoLines, readingSummary, renderEcho } from "../protocol/echo.js";
import { renderHowToAnswer } from "../protocol/howToAnswer.js";
import { parseReply } from "../protocol/reply.js";
import { jobIds } from "../queueNames.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { refusedAnswer, type RefusalPorts } from "./answerers.js";
import { sendFeedback, targetOf, type FeedbackPorts, type IssueTarget } from "../status/feedback.js";
import { reportHiddenContent, type HiddenContentPorts } from "./hiddenContent.js";
import type { Outcome } from "./outcome.js";
import { echoKeys, forgetJobs, redactEchoes, withdrawalLine, type ForgetPorts } from "./withdrawals.js";

/** What recording answers touches: the gate, the resume's spawn job, the observers, the issue's feedback (and, for a withdrawn answer, its queued jobs). */
export type AnswerPorts = FeedbackPorts &
  ForgetPorts &
  Pick<Services, "events" | "settings"> & {
    gates: Pick<Services["gates"], "recordAnswer" | "getGate" | "reviseAnswers">;
    commentMarks: Pick<Services["commentMarks"], "commentWasDeleted">;
    queues: Pick<Services["queues"], "addSpawn">;
    log: Pick<Services["log"], "info">;
  };

/** What reading a human's reply as an answer touches, beyond recording it. */
export type ReplyPorts = AnswerPorts & RefusalPorts & HiddenContentPorts & { github: Pick<Services["github"], "identity"> };

export interface AnswerSource {
  by: string;
  /** What the app understood of a reply (src/protocol/echo.ts): a comment when it interpreted, a status line always. */
  echo?: { comment?: string; lines: string[]; statusLine: string };
  /** The answering comment's id, or a synthetic id ("timeout-…") for answers the app took. */
  commentId: number | string;
  at: number;
  receivedAt: number;
  url?: string;
}

/**
 * Records answers on a gate atomically and, once every question has one, queues the resume. The
 * spawn job id comes from the gate, so duplicates of any kind collapse to one spawn.
 */
export async function applyAnswers(services: AnswerPorts, target: IssueTarget, gate: Gate, answers: RecordedAnswer[], source: AnswerSource): Promise<Outcome> {
  // Only a real comment is stored as the answering comment: a synthetic id would read back as NaN
  // and make the status comment's hidden state unreadable. "" still makes a retried timeout "same".
  const answeringComment = typeof source.commentId === "number" ? source.commentId : "";
  const result = await services.gates.recordAnswer(gate, answers, source.by, answeringComment, source.at);
  if (result.outcome === "taken") {
    if (typeof source.commentId === "number") {
      await sendFeedback(services, target, {
        ops: [
          {
            type: "comment",
            body:
              gate.ask.kind === APPROVAL_KIND
                ? renderLateVote(source.by, result.answeredBy)
                : `@${source.by} this question was already answered by @${result.answeredBy}; your reply was not used. Use \`/reopen\` to correct that answer or \`/note\` to add guidance.`,
          },
        ],
        key: `taken-${source.commentId}`,
      });
    }
    return { kind: "alreadyAnswered" };
  }
  if (result.outcome === "missing") return { kind: "gateVanished" };
  if (
    (result.outcome === "recorded" || result.outcome === "partial") &&
    typeof source.commentId === "number" &&
    (await services.commentMarks.commentWasDeleted(target.repo, source.commentId))
  ) {
    return withdrawDeleted(services, target, gate, source.commentId, source.by);
  }
  if (result.outcome === "partial") {
    const remaining = gate.ask.questions.map((_, i) => i).filter((i) => !result.answers.some((a) => a.question === i));
    await sendFeedback(services, target, {
      ops: [
        {
          type: "comment",
          ...echoOf(source),
          body: `Recorded ${result.answers.length} of ${gate.ask.questions.length} answers. Still open: ${remaining.map((i) => `**${i + 1}.** ${gate.ask.questions[i]!.text}`).join(" · ")}. Reply with \`${remaining[0]! + 1}. your answer\` or \`/answer ${remaining[0]! + 1} your answer\`.${source.echo?.lines.length ? `\n\nYour reply was recorded as\n\n${source.echo.lines.join("\n")}` : ""}`,
        },
      ],
      line: `answers recorded for ${answers.map((a) => `question ${a.question + 1}`).join(", ")} of gate ${gate.id} by @${source.by}; ${remaining.length} still open`,
      key: `partial-${gate.id}-${source.commentId}`,
    });
    return { kind: "answerPartial" };
  }
  // "same" is a redelivery or a retried job: enqueue again only if the resume has not begun.
  if (result.outcome === "same" && result.state !== "answered") return { kind: "answerAlreadyResumed" };
  if (result.outcome === "recorded") {
    services.events.notify("gate.answered", { gate: result.gate, by: source.by, source: answers.every((a) => a.source === "default") ? "default" : "human" });
  }
  await services.queues.addSpawn(
    {
      installationId: target.installationId,
      repo: target.repo,
      issue: target.issue,
      trigger: { type: "resume", gateId: gate.id },
      receivedAt: source.receivedAt,
    },
    jobIds.resume(gate.id, result.reopened),
    (await services.settings(target.installationId, target.repo)).settings.maxAttempts,
  );
  services.log.info({ repo: target.repo, issue: target.issue, gate: gate.id, by: source.by }, "answer recorded");
  // After the spawn is queued, never before it: the echo is feedback, off the resume path.
  if (result.outcome === "recorded" && source.echo) {
    await sendFeedback(services, target, {
      ops: source.echo.comment ? [{ type: "comment", ...echoOf(source), body: source.echo.comment }] : [],
      line: source.echo.statusLine,
      key: `echo-${source.commentId}`,
      quiet: true,
    });
  }
  return { kind: "answerRecorded" };
}

/** The reply a comment quoting its words echoes, so the words can be taken off GitHub again (see redactEchoes). */
function echoOf(source: AnswerSource): { echoOf?: number } {
  return typeof source.commentId === "number" ? { echoOf: source.commentId } : {};
}

/**
 * The answer's comment was deleted before this event of its creation was processed (GitHub does not
 * promise order): the answer just recorded is withdrawn again, before any resume was queued.
 */
async function withdrawDeleted(services: AnswerPorts, target: IssueTarget, gate: Gate, commentId: number, by: string): Promise<Outcome> {
  const at = Date.now();
  const revised = await services.gates.reviseAnswers(gate, commentId, [], at);
  if (revised.outcome === "missing" || revised.outcome === "none") return { kind: "answerWithdrawn", how: "deleted early" };
  services.events.notify("gate.revised", { gateId: gate.id, at });
  await forgetJobs(services, target, [], echoKeys(gate.id, commentId));
  await redactEchoes(services, target, commentId, "deleted");
  await sendFeedback(services, target, {
    line: withdrawalLine(gate.id, revised, `the answer of @${by} to gate ${gate.id} was withdrawn (its comment was deleted)`),
  });
  return { kind: "answerWithdrawn", how: "deleted early" };
}

/** A permitted human's comment while a gate is open (or was answered moments ago). */
export async function answerFromReply(services: ReplyPorts, event: CommentEvent, gate: Gate, body = event.comment.body): Promise<Outcome> {
  const parsed = parseReply(body, gate.ask.questions, appMentionNames((await services.github.identity()).botLogin));
  // People talking among themselves: no reply, no refusal, the gate keeps waiting.
  if (parsed.verdict.kind === "discussion") return { kind: "discussion", why: parsed.verdict.why };
  const refused = await refusedAnswer(services, event, gate);
  if (refused) return refused;
  // Hidden content never reaches the agent (parseReply reads only visible text); say what was removed.
  await reportHiddenContent(services, event, body);
  if (parsed.verdict.kind === "not an answer") {
    const by = event.comment.author.login;
    // Once per person and gate, within the write budget (the feedback queue), while it is open.
    if (gate.state === "open" && (await services.commentMarks.firstTime(`how-to-answer:${gate.id}:${by.toLowerCase()}`))) {
      await sendFeedback(services, targetOf(event), {
        ops: [{ type: "comment", body: renderHowToAnswer(by, gate.ask.questions) }],
        key: `how-to-answer-${gate.id}-${by.toLowerCase()}`,
      });
    }
    return { kind: "notAnAnswer", why: parsed.verdict.why };
  }
  if (parsed.answers.length === 0) return { kind: "noAnswer" };
  const at = Date.parse(event.comment.createdAt) || event.receivedAt;
  const answers = recordedAnswers(parsed.answers, event, at);
  const by = event.comment.author.login;
  return applyAnswers(services, { installationId: event.installationId, repo: event.repo, issue: event.issue.number }, gate, answers, {
    by,
    echo: {
      comment: renderEcho(by, parsed.answers, gate.ask.questions),
      lines: echoLines(parsed.answers, gate.ask.questions),
      statusLine: `the answer of @${by} to gate ${gate.id} was read as ${readingSummary(parsed.answers, gate.ask.questions)}`,
    },
    commentId: event.comment.id,
    at,
    receivedAt: event.receivedAt,
    url: event.comment.url,
  });
}

/** The answers a gate's defaults give for its unanswered questions (those that have a default). */
export function defaultAnswers(gate: Gate, by: string, at: number, source: "human" | "default", onlyQuestions?: readonly number[]): RecordedAnswer[] {
  return gate.ask.questions.flatMap((question, index) => {
    if (question.default === undefined || gate.answers.some((a) => a.question === index)) return [];
    if (onlyQuestions && !onlyQuestions.includes(index)) return [];
    const optionIndex = question.options.indexOf(question.default);
    return [
      {
        question: index,
        text: question.default,
        ...(optionIndex >= 0 ? { option: question.default, optionIndex } : {}),
        by,
        at,
        source,
      },
    ];
  });
}
