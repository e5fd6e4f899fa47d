import type { Gate, RecordedAnswer } from "../gates/types.js";
import { parseReply } from "../protocol/reply.js";
import { jobIds } from "../queue/names.js";
import type { CommentEvent } from "../queue/jobs.js";
import type { Services } from "../services.js";
import { sendFeedback, targetOf } from "./feedback.js";

/**
 * A permitted human replied while a gate is open: record the answer once, atomically, and queue
 * the resume. The spawn job id comes from the gate, so duplicates collapse to one spawn.
 */
export async function answerGate(services: Services, event: CommentEvent, gate: Gate): Promise<string> {
  const parsed = parseReply(event.comment.body, gate.ask.questions);
  if (parsed.answers.length === 0) return "reply had no answer";
  if (parsed.unanswered.length > 0 && gate.state === "open") {
    await sendFeedback(services, targetOf(event), [
      {
        type: "comment",
        body: `@${event.comment.author.login} thanks; still needed: ${parsed.unanswered.map((i) => `question ${i + 1}`).join(", ")}. Reply with one line per question, such as \`${parsed.unanswered[0]! + 1}. your answer\`.`,
      },
    ]);
    return "reply incomplete";
  }
  const at = Date.parse(event.comment.createdAt) || event.receivedAt;
  const answers: RecordedAnswer[] = parsed.answers.map((answer) => ({
    ...answer,
    by: event.comment.author.login,
    at,
    source: "human",
    commentId: event.comment.id,
    url: event.comment.url,
  }));
  const result = await services.store.recordAnswer(gate, answers, event.comment.author.login, event.comment.id, at);
  if (result.outcome === "taken") {
    await sendFeedback(services, targetOf(event), [
      { type: "comment", body: `@${event.comment.author.login} this question was already answered by @${result.answeredBy}; your reply was not used. Use \`/note\` to add guidance for the next round.` },
    ], undefined, `taken-${event.comment.id}`);
    return "already answered";
  }
  if (result.outcome === "missing") return "gate vanished";
  if (result.outcome === "recorded") {
    services.events.notify("gate.answered", { gate: { ...gate, state: "answered", answers, answeredBy: event.comment.author.login, answeredAt: at }, by: event.comment.author.login, source: "human" });
  }
  // "same" is a redelivery or a retried job: enqueue again only if the resume has not begun.
  if (result.outcome === "same" && result.state !== "answered") return "answer already resumed";
  await services.queues.addSpawn(
    { installationId: event.installationId, repo: event.repo, issue: event.issue.number, trigger: { type: "resume", gateId: gate.id }, receivedAt: event.receivedAt },
    jobIds.resume(gate.id),
  );
  services.log.info({ repo: event.repo, issue: event.issue.number, gate: gate.id, by: event.comment.author.login }, "answer recorded");
  return "answer recorded";
}
