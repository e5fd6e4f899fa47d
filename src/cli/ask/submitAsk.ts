import { CHANNEL_PATHS } from "../../channel/channelPaths.js";
import type { Ask, AskInput } from "../../domain.js";
import { ProtocolError } from "../../errors.js";
import { newAskId, renderAskComment, validateAsk } from "../../protocol/ask.js";
import { postOnIssue } from "../postOnIssue.js";
import { UsageError } from "../usage.js";
import type { AskEnv } from "./askEnv.js";
import { askTarget } from "./askTarget.js";
import type { QuestionDraft } from "./questionFlags.js";

export interface AskResult {
  /** The posted comment's URL; "" for a dry run. */
  url: string;
  body: string;
  ask: Ask;
}

/** What an agent asks, before validation: the questions and the ask-wide settings. */
export interface AskDraft {
  questions: QuestionDraft[];
  kind?: string;
  /** For kind "approval": the approvals needed. */
  approvers?: number;
  timeoutSeconds?: number;
  context?: string;
  /** Repository paths the ask is about (their code owners may answer). */
  paths?: string[];
}

/** The ask an AskDraft makes for `round`, before validation. */
export function askInputFrom(draft: AskDraft, round: number): AskInput {
  return {
    v: 1,
    id: newAskId(),
    kind: draft.kind ?? "question",
    round,
    questions: draft.questions,
    timeoutSeconds: draft.timeoutSeconds,
    context: draft.context,
    paths: draft.paths?.length ? draft.paths : undefined,
    approvers: draft.approvers,
  };
}

/**
 * Builds the ask comment and posts it on the issue: the one path shared by `escalate ask` and the
 * `ask_human` tool of `escalate mcp`. `repo` and `issue` default to the agent's environment. In a
 * round the app posts it, through the round channel (ESCALATION_CHANNEL_URL); by hand, GITHUB_TOKEN
 * does. Bad input is a UsageError, a missing variable an EnvironmentError; GitHub (or the app)
 * refusing the comment is a GitHubError.
 */
export async function submitAsk(draft: AskDraft, where: { env: AskEnv; repo?: string; issue?: string; dryRun?: boolean }): Promise<AskResult> {
  const { env } = where;
  if (draft.questions.length === 0) throw new UsageError("At least one --question is required.");
  const { repo, issue } = askTarget(env, where, !where.dryRun);
  const input = askInputFrom(draft, Number(env.ESCALATION_ROUND ?? 0));
  let ask: Ask;
  let body: string;
  try {
    ask = validateAsk(input);
    body = renderAskComment(ask); // a marker too large is the agent's input at fault, not GitHub's
  } catch (error) {
    if (error instanceof ProtocolError) throw new UsageError(error.message.replace(/^Invalid ask: /, ""), { cause: error });
    throw error;
  }
  if (where.dryRun) return { url: "", body, ask };
  return { url: await postOnIssue(env, { repo, issue }, { path: CHANNEL_PATHS.ask, payload: ask, body }), body, ask };
}
