import type { Ask, AskInput } from "../../domain.js";
import { ProtocolError } from "../../errors.js";
import { newAskId, renderAskComment, validateAsk } from "../../protocol/ask.js";
import { postIssueComment } from "../github.js";
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

/**
 * Builds the ask comment and posts it on the issue: the one path shared by `escalate ask` and the
 * `ask_human` tool of `escalate mcp`. `repo` and `issue` default to the agent's environment.
 * Bad input is a UsageError, a missing variable an EnvironmentError; GitHub refusing the comment
 * is a GitHubError.
 */
export async function submitAsk(draft: AskDraft, where: { env: AskEnv; repo?: string; issue?: string; dryRun?: boolean }): Promise<AskResult> {
  const { env } = where;
  if (draft.questions.length === 0) throw new UsageError("At least one --question is required.");
  const { repo, issue } = askTarget(env, where, !where.dryRun);
  const input: AskInput = {
    v: 1,
    id: newAskId(),
    kind: draft.kind ?? "question",
    round: Number(env.ESCALATION_ROUND ?? 0),
    questions: draft.questions,
    timeoutSeconds: draft.timeoutSeconds,
    context: draft.context,
    paths: draft.paths?.length ? draft.paths : undefined,
    approvers: draft.approvers,
  };
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
  const url = await postIssueComment(
    { token: env.GITHUB_TOKEN, apiUrl: env.GITHUB_API_URL, proxy: env },
    repo,
    issue,
    body,
    "GITHUB_TOKEN is not set; the app sets it for agents it spawns.",
  );
  return { url, body, ask };
}
