import { parseArgs } from "node:util";
import { approvalFlags } from "../ask/approvalFlags.js";
import { questionsFrom } from "../ask/questionFlags.js";
import { readAskEnvAndTarget } from "../ask/readAskEnvAndTarget.js";
import { submitAsk, type AskResult } from "../ask/submitAsk.js";
import { UsageError } from "../usage.js";

/** `escalate ask`: reads the flags and the agent's environment, posts the ask, prints its URL (or, with --dry-run, its body). */
export async function askCommand(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<AskResult> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        question: { type: "string", multiple: true },
        option: { type: "string", multiple: true },
        default: { type: "string", multiple: true },
        timeout: { type: "string", multiple: true },
        context: { type: "string" },
        path: { type: "string", multiple: true },
        kind: { type: "string" },
        approvers: { type: "string" },
        repo: { type: "string" },
        issue: { type: "string" },
        "dry-run": { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const dryRun = parsed.values["dry-run"] ?? false;
  const { env: askEnv } = readAskEnvAndTarget(env, { repo: parsed.values.repo, issue: parsed.values.issue }, !dryRun);
  let drafts;
  try {
    drafts = questionsFrom(parsed.tokens);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message, { cause: error });
  }
  const approvers = approvalFlags(parsed.values.kind, parsed.values.approvers, drafts.questions);
  const result = await submitAsk(
    {
      questions: drafts.questions,
      kind: parsed.values.kind,
      approvers,
      timeoutSeconds: drafts.askTimeout,
      context: parsed.values.context,
      paths: parsed.values.path,
    },
    { env: askEnv, repo: parsed.values.repo, issue: parsed.values.issue, dryRun },
  );
  out(dryRun ? result.body : result.url);
  return result;
}
