import { agentAskComment, postForAgent, type PostPorts } from "../channel/postForAgent.js";
import type { RoundGrant } from "../channel/roundGrants.js";
import { askInputFrom } from "../cli/ask/submitAsk.js";
import { sendFeedback, type FeedbackPorts } from "../status/feedback.js";
import type { CommentMarks } from "../store/commentMarks.js";
import { takeAskFile } from "../agent/askFile.js";

export interface AskFileRound {
  /** The agent's ESCALATION_ASK_FILE. */
  path: string;
  /** The round's grant: the ask is posted as the round channel posts `escalate ask`'s. */
  grant: RoundGrant;
}

/**
 * Posts the question an agent left in its ask file, as the round channel posts one `escalate ask`
 * sends, and returns a status-line suffix: "" when there was none or it was posted, a ⚠️ saying what
 * to fix otherwise. While the app may not write (its write budget, GitHub's pause) the question goes
 * to the issue's feedback queue, which posts it when it may. The same file in the same round is
 * posted once, however often the job runs.
 */
export async function postAskFile(services: PostPorts & FeedbackPorts & { commentMarks: Pick<CommentMarks, "firstTime"> }, at: AskFileRound): Promise<string> {
  const content = await takeAskFile(at.path);
  if (content.kind === "none") return "";
  const warn = (problem: string) =>
    ` · ⚠️ the agent's ask file was not posted: ${problem}. It must be JSON with the ask_human tool's arguments (README, "The agent contract").`;
  if (content.kind === "invalid") return warn(content.problem);
  const { grant } = at;
  if (!(await services.commentMarks.firstTime(`ask-file:${grant.repo.toLowerCase()}#${grant.issue}:${grant.round}:${content.digest}`))) return "";
  const comment = agentAskComment(grant, askInputFrom(content.draft, grant.round));
  if (comment.kind === "invalid") return warn(comment.message.replace(/\.$/, ""));
  const posted = await postForAgent(services, grant, comment.body);
  if (posted.kind === "deferred") {
    const target = { installationId: grant.installationId, repo: grant.repo, issue: grant.issue };
    await sendFeedback(services, target, { ops: [{ type: "comment", body: comment.body }], key: `ask-file-${grant.round}-${content.digest}` });
    return "";
  }
  return posted.kind === "posted" ? "" : warn(posted.message.replace(/\.$/, ""));
}
