import { readAskEnv } from "../cli/ask/askEnv.js";
import { submitAsk } from "../cli/ask/submitAsk.js";
import type { CommentMarks } from "../store/commentMarks.js";
import { takeAskFile } from "./askFile.js";

export interface AskFileRound {
  /** The agent's ESCALATION_ASK_FILE. */
  path: string;
  /** The agent's environment: the ask is posted as `escalate ask` run there would post it, with its token. */
  env: Record<string, string>;
  repo: string;
  issue: number;
  round: number;
}

/**
 * Posts the question an agent left in its ask file, through the one builder `escalate ask` uses,
 * and returns a status-line suffix: "" when there was none or it was posted, a ⚠️ saying what to
 * fix otherwise. The same file in the same round is posted once, however often the job runs.
 */
export async function postAskFile(services: { commentMarks: Pick<CommentMarks, "firstTime"> }, at: AskFileRound): Promise<string> {
  const content = await takeAskFile(at.path);
  if (content.kind === "none") return "";
  const warn = (problem: string) =>
    ` · ⚠️ the agent's ask file was not posted: ${problem}. It must be JSON with the ask_human tool's arguments (README, "The agent contract").`;
  if (content.kind === "invalid") return warn(content.problem);
  if (!(await services.commentMarks.firstTime(`ask-file:${at.repo.toLowerCase()}#${at.issue}:${at.round}:${content.digest}`))) return "";
  try {
    await submitAsk(content.draft, { env: readAskEnv(at.env) });
    return "";
  } catch (error) {
    return warn((error as Error).message.replace(/\.$/, ""));
  }
}
