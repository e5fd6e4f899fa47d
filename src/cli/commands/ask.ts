import { parseArgs } from "node:util";
import { Octokit } from "@octokit/rest";
import { z } from "zod";
import { GitHubError, ProtocolError, describeIssues } from "../../errors.js";
import { newAskId, renderAskComment, validateAsk, type AskInput } from "../../protocol/ask.js";
import { parseDuration } from "../../protocol/duration.js";
import { UsageError } from "../usage.js";

const CliEnv = z.object({
  GITHUB_TOKEN: z.string().min(1).optional(),
  GITHUB_API_URL: z.string().url().default("https://api.github.com"),
  GITHUB_REPOSITORY: z.string().optional(),
  ESCALATION_ISSUE: z.string().optional(),
  ESCALATION_ROUND: z.string().regex(/^\d+$/).optional(),
});

interface QuestionDraft {
  text: string;
  options: string[];
  default?: string;
  timeoutSeconds?: number;
}

/** Turns ordered flags into questions: --option, --default and --timeout belong to the last --question. */
function questionsFrom(tokens: ReturnType<typeof parseArgs>["tokens"]): { questions: QuestionDraft[]; askTimeout?: number } {
  const questions: QuestionDraft[] = [];
  let askTimeout: number | undefined;
  for (const token of tokens ?? []) {
    if (token.kind !== "option" || typeof token.value !== "string") continue;
    const current = questions.at(-1);
    switch (token.name) {
      case "question":
        questions.push({ text: token.value, options: [] });
        break;
      case "option":
        if (!current) throw new UsageError("--option must follow the --question it belongs to.");
        current.options.push(token.value);
        break;
      case "default":
        if (!current) throw new UsageError("--default must follow the --question it belongs to.");
        current.default = token.value;
        break;
      case "timeout": {
        const seconds = parseDuration(token.value, "--timeout");
        if (current) current.timeoutSeconds = seconds;
        else askTimeout = seconds;
        break;
      }
    }
  }
  return { questions, askTimeout };
}

export interface AskResult {
  url: string;
  body: string;
}

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
        kind: { type: "string" },
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
  const e = CliEnv.safeParse(env);
  if (!e.success) throw new UsageError(`Invalid environment: ${describeIssues(e.error.issues)}`);
  let drafts;
  try {
    drafts = questionsFrom(parsed.tokens);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message, { cause: error });
  }
  if (drafts.questions.length === 0) throw new UsageError("At least one --question is required.");
  const repo = parsed.values.repo ?? e.data.GITHUB_REPOSITORY;
  if (!repo || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) {
    throw new UsageError(`--repo (or GITHUB_REPOSITORY) must be OWNER/REPO (got ${JSON.stringify(repo ?? "")}).`);
  }
  const issueText = parsed.values.issue ?? e.data.ESCALATION_ISSUE;
  if (!issueText || !/^\d+$/.test(issueText) || Number(issueText) < 1) {
    throw new UsageError(`--issue (or ESCALATION_ISSUE) must be an issue number (got ${JSON.stringify(issueText ?? "")}).`);
  }
  const input: AskInput = {
    v: 1,
    id: newAskId(),
    kind: parsed.values.kind ?? "question",
    round: Number(e.data.ESCALATION_ROUND ?? 0),
    questions: drafts.questions,
    timeoutSeconds: drafts.askTimeout,
    context: parsed.values.context,
  };
  let body: string;
  try {
    body = renderAskComment(validateAsk(input));
  } catch (error) {
    if (error instanceof ProtocolError) throw new UsageError(error.message.replace(/^Invalid ask: /, ""), { cause: error });
    throw error;
  }
  if (parsed.values["dry-run"]) {
    out(body);
    return { url: "", body };
  }
  if (!e.data.GITHUB_TOKEN) throw new UsageError("GITHUB_TOKEN is not set; the app sets it for agents it spawns.");
  const [owner, name] = repo.split("/") as [string, string];
  const octokit = new Octokit({ auth: e.data.GITHUB_TOKEN, baseUrl: e.data.GITHUB_API_URL.replace(/\/$/, ""), log: { debug() {}, info() {}, warn() {}, error() {} } });
  try {
    const { data } = await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner,
      repo: name,
      issue_number: Number(issueText),
      body,
    });
    out(data.html_url);
    return { url: data.html_url, body };
  } catch (error) {
    const status = (error as { status?: number }).status;
    const message = (error as { response?: { data?: { message?: string } } }).response?.data?.message ?? (error as Error).message;
    throw new GitHubError(`GitHub refused the comment on ${repo}#${issueText}${status ? ` (HTTP ${status})` : ""}: ${message}`, status, { cause: error });
  }
}
