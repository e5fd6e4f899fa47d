import { APPROVAL_KIND, type ApprovalRule, type Ask, type Gate, type Vote } from "../domain.js";
import { approvalAnswer } from "./approvalAnswer.js";
import type { RepoSettings } from "../config/repoConfig.js";
import { appMentionNames } from "../protocol/addressing.js";
import { readVote, renderLateVote, renderNotAVote, renderResolved, renderVoteAck, tally } from "../protocol/approval.js";
import type { CommentEvent } from "../payloads.js";
import type { Services } from "../services/services.js";
import { applyAnswers, type ReplyPorts } from "./answerGate.js";
import { sendFeedback, targetOf } from "../status/feedback.js";
import { reportHiddenContent } from "./hiddenContent.js";
import type { Outcome } from "./outcome.js";

export function isApprovalGate(gate: Pick<Gate, "ask">): boolean {
  return gate.ask.kind === APPROVAL_KIND;
}

/** The ask's approvals, never fewer than the repository requires; the policy is the repository's. */
export function approvalRule(ask: Ask, settings: RepoSettings): ApprovalRule {
  return { required: Math.max(ask.approvers ?? 1, settings.approvals.approvers), policy: settings.approvals.policy };
}

/** What counting a vote touches, beyond what reading a reply as an answer does. */
export type VotePorts = ReplyPorts & { gates: Pick<Services["gates"], "recordVote"> };

/**
 * A permitted human's reply on an approval gate: a vote, recorded once per person in Redis; the
 * vote that meets the policy resolves the gate (approved or denied) and queues the agent's resume
 * like an answer does. Every acknowledgement goes through the feedback queue, after the resume.
 */
export async function voteFromReply(services: VotePorts, event: CommentEvent, gate: Gate, settings: RepoSettings): Promise<Outcome> {
  const by = event.comment.author.login;
  const target = targetOf(event);
  const identity = await services.github.identity();
  // The account that asked (and the app) never approves its own ask.
  if ([gate.askedBy, identity.botLogin].some((login) => login.toLowerCase() === by.toLowerCase()))
    return { kind: "ignored", reason: "the asker's own vote never counts" };
  const parsed = readVote(event.comment.body, appMentionNames(identity.botLogin));
  // A comment addressed to someone else is discussion, as on a question: no vote, no hint.
  if (parsed === "discussion") return { kind: "discussion", why: "addressed to someone else" };
  await reportHiddenContent(services, event, event.comment.body);
  if (!parsed) {
    if (gate.state === "open" && (await services.commentMarks.firstTime(`not-a-vote:${gate.id}:${by.toLowerCase()}`))) {
      await sendFeedback(services, target, { ops: [{ type: "comment", body: renderNotAVote(by) }], key: `not-a-vote-${event.comment.id}` });
    }
    return { kind: "noVote" };
  }
  const vote: Vote = {
    login: by,
    vote: parsed.vote,
    at: Date.parse(event.comment.createdAt) || event.receivedAt,
    commentId: event.comment.id,
    url: event.comment.url,
    ...(parsed.note ? { note: parsed.note } : {}),
  };
  const recorded = await services.gates.recordVote(gate.id, vote);
  if (recorded.outcome === "missing") return { kind: "gateVanished" };
  if (recorded.outcome === "closed") {
    // The vote that decided, delivered again: the resume is queued again unless it has begun (a
    // crash between the outcome and the queueing loses nothing); the job id keeps it to one spawn.
    if (gate.answerCommentId === event.comment.id) {
      return applyAnswers(services, target, gate, gate.answers, {
        by,
        commentId: event.comment.id,
        at: gate.answeredAt ?? vote.at,
        receivedAt: event.receivedAt,
        url: event.comment.url,
      });
    }
    await sendFeedback(services, target, { ops: [{ type: "comment", body: renderLateVote(by, gate.answeredBy) }], key: `late-vote-${event.comment.id}` });
    return { kind: "lateVote" };
  }
  const rule = approvalRule(gate.ask, settings);
  const counted = tally(recorded.votes, rule);
  if (counted.outcome === undefined) {
    if (recorded.outcome !== "same") {
      await sendFeedback(services, target, {
        ops: [{ type: "comment", body: renderVoteAck(by, parsed.vote, counted, rule, recorded.outcome === "repeated") }],
        line: `@${by} ${recorded.outcome === "repeated" ? "repeated a vote on" : `voted ${parsed.vote} on`} gate ${gate.id}: ${counted.approvals.length}/${rule.required} approvals`,
        key: `vote-${event.comment.id}`,
        quiet: true,
      });
    }
    return { kind: "voteRecorded", repeated: recorded.outcome === "repeated" };
  }
  // Resolved: the outcome is the gate's one answer, recorded and resumed exactly once like any other
  // (a redelivery of this comment finds the same outcome and is "same").
  const deciders = counted.outcome === "denied" ? counted.denials : counted.approvals;
  const answer = approvalAnswer({ ...counted, outcome: counted.outcome }, rule, vote);
  const outcome = await applyAnswers(services, target, gate, [answer], {
    by,
    commentId: event.comment.id,
    at: vote.at,
    receivedAt: event.receivedAt,
    url: event.comment.url,
    echo: {
      comment: renderResolved(counted, rule),
      lines: [],
      statusLine: `approval gate ${gate.id} ${counted.outcome} by ${deciders.map((v) => `@${v.login}`).join(", ")} (${counted.approvals.length}/${rule.required} approvals, policy ${rule.policy})`,
    },
  });
  return outcome.kind === "answerRecorded" ? { kind: "approvalRecorded", decision: counted.outcome } : outcome;
}
