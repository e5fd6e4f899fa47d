import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { CHANNEL_PATHS } from "../../channel/channelPaths.js";
import { MAX_AGENT_COMMENT_CHARS, renderAgentComment } from "../../protocol/agentComment.js";
import { readAskEnvAndTarget } from "../ask/readAskEnvAndTarget.js";
import { postOnIssue } from "../postOnIssue.js";
import { UsageError } from "../usage.js";

/**
 * `escalate comment`: the agent leaves a comment on its issue (progress, a note for the reviewer)
 * without asking anything. In a round the app posts it, marked as the agent's words, through the
 * round channel; by hand, GITHUB_TOKEN does. Prints the comment's URL.
 */
export async function commentCommand(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void, stdin: () => Promise<string>): Promise<string> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { body: { type: "string" }, "body-file": { type: "string" }, repo: { type: "string" }, issue: { type: "string" } },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const { body, "body-file": bodyFile } = parsed.values;
  if ((body === undefined) === (bodyFile === undefined))
    throw new UsageError("Give the comment's text with exactly one of --body TEXT and --body-file FILE (- for stdin).");
  const { env: commentEnv, target } = readAskEnvAndTarget(env, { repo: parsed.values.repo, issue: parsed.values.issue }, true);
  const text = body ?? (bodyFile === "-" ? await stdin() : await readBodyFile(bodyFile!));
  if (text.trim() === "") throw new UsageError("The comment is empty.");
  const rendered = renderAgentComment(text, Number(commentEnv.ESCALATION_ROUND ?? 0));
  // The app measures it too; checked here as well, so that a comment posted by hand fails the same way.
  if (rendered.length > MAX_AGENT_COMMENT_CHARS)
    throw new UsageError(`The comment is ${rendered.length} characters as posted; at most ${MAX_AGENT_COMMENT_CHARS} are. Shorten it.`);
  const url = await postOnIssue(commentEnv, target, { path: CHANNEL_PATHS.comment, payload: { body: text }, body: rendered });
  out(url);
  return url;
}

async function readBodyFile(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`--body-file ${path} could not be read: ${(error as Error).message}`, { cause: error });
  }
}
