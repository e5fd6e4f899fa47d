import { parseArgs } from "node:util";
import { z } from "zod";
import { APPROVAL_KIND, MAX_APPROVERS, type Ask, type AskInput } from "../../domain.js";
import { ProtocolError } from "../../errors.js";
import { newAskId, renderAskComment, validateAsk } from "../../protocol/ask.js";
import { parseDuration } from "../../protocol/duration.js";
import { postIssueComment } from "../github.js";
import { PROXY_ENV_SHAPE } from "../proxyFetch.js";
import { EnvironmentError, UsageError, invalidEnvironment } from "../usage.js";

/** What the app sets for the agents it spawns (src/agent/agentEnv.ts) and an ask needs. */
const AGENT_ENV_SHAPE = {
  GITHUB_TOKEN: z.string().min(1).optional(),
  GITHUB_API_URL: z.string().url().default("https://api.github.com"),
  GITHUB_REPOSITORY: z.string().optional(),
  ESCALATION_ISSUE: z.string().optional(),
  ESCALATION_ROUND: z.string().regex(/^\d+$/, "must be a round number (0, 1, 2, …)").optional(),
};

const CliEnv = z.object({ ...AGENT_ENV_SHAPE, ...PROXY_ENV_SHAPE });

/** The agent's variables `escalate ask` and `escalate mcp` read, without the proxy ones. */
export const AGENT_ENV_NAMES = Object.keys(AGENT_ENV_SHAPE) as readonly string[];

/** The variables `escalate ask` and `escalate mcp` read: a tool that clears its MCP servers' environment must pass these. */
export const ASK_ENV_NAMES = Object.keys(CliEnv.shape) as readonly string[];

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const isIssueNumber = (text: string) => /^\d+$/.test(text) && Number(text) >= 1;

export interface QuestionDraft {
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

const ApproversFlag = z
  .string()
  .regex(/^\s*\d+\s*$/, { error: (issue) => `--approvers must be a positive integer (got ${JSON.stringify(issue.input)}).` })
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .min(1, { error: "--approvers must be at least 1 (got 0)." })
      .max(MAX_APPROVERS, { error: (issue) => `--approvers must be at most ${MAX_APPROVERS} (got ${String(issue.input)}).` }),
  );

/** The flags that shape an approval, checked together so each message names the flag to change. */
const ApprovalFlags = z
  .object({
    kind: z.string().optional(),
    approvers: ApproversFlag.optional(),
    questions: z.array(z.object({ options: z.array(z.string()), default: z.string().optional() })),
  })
  .superRefine((flags, ctx) => {
    const problem = (message: string) => ctx.addIssue({ code: "custom", message });
    if (flags.kind !== APPROVAL_KIND) {
      if (flags.approvers !== undefined) problem(`--approvers needs --kind ${APPROVAL_KIND} (got --kind ${flags.kind ?? "question"}).`);
      return;
    }
    if (flags.questions.length > 1) problem(`--kind ${APPROVAL_KIND} takes exactly one --question, the thing to approve (got ${flags.questions.length}).`);
    if (flags.questions.some((q) => q.options.length > 0)) problem(`--option is not allowed with --kind ${APPROVAL_KIND}: people reply approve or deny.`);
    if (flags.questions.some((q) => q.default !== undefined)) problem(`--default is not allowed with --kind ${APPROVAL_KIND}: nobody approves by silence.`);
  });

/** Validates --kind and --approvers against the questions; returns the approvers count, if given. */
function approvalFlags(kind: string | undefined, approvers: string | undefined, questions: QuestionDraft[]): number | undefined {
  const parsed = ApprovalFlags.safeParse({ kind, approvers, questions });
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => issue.message).join(" "));
  return parsed.data.approvers;
}

export interface AskResult {
  /** The posted comment's URL; "" for a dry run. */
  url: string;
  body: string;
  ask: Ask;
}

/** The environment the app gives an agent (see src/agent/agentEnv.ts). */
export type AskEnv = z.infer<typeof CliEnv>;

/** Reads the agent's environment; a malformed value is an EnvironmentError naming the variable. */
export function readAskEnv(env: NodeJS.ProcessEnv): AskEnv {
  const e = CliEnv.safeParse(env);
  if (!e.success) throw invalidEnvironment(e.error.issues);
  return e.data;
}

/**
 * The environment and the target it names, read together so that one EnvironmentError names every
 * variable to fix, the malformed and the missing alike: a client fixing only the first would fail again.
 */
export function readAskEnvAndTarget(env: NodeJS.ProcessEnv, flags: { repo?: string; issue?: string }, needToken: boolean): { env: AskEnv; target: AskTarget } {
  const e = CliEnv.safeParse(env);
  if (e.success) return { env: e.data, target: askTarget(e.data, flags, needToken) };
  const malformed = invalidEnvironment(e.error.issues);
  // Without the malformed values (all optional) the rest parses, and shows what is missing besides.
  const rest = CliEnv.parse(Object.fromEntries(Object.entries(env).filter(([name]) => !malformed.variables.includes(name))));
  try {
    askTarget(rest, flags, needToken);
  } catch (error) {
    if (error instanceof EnvironmentError) throw new EnvironmentError(`${malformed.message}; ${error.message}`, [...malformed.variables, ...error.variables]);
    throw error;
  }
  throw malformed;
}

/** Where an ask is posted. */
export interface AskTarget {
  repo: string;
  issue: number;
}

/**
 * The repository and issue of an ask: the flags when given, else the agent's environment. A bad
 * flag is a UsageError; whatever the environment lacks (the token too, when `needToken`) is one
 * EnvironmentError naming every variable to set.
 */
export function askTarget(env: AskEnv, flags: { repo?: string; issue?: string }, needToken: boolean): AskTarget {
  if (flags.repo !== undefined && !REPO.test(flags.repo)) throw new UsageError(`--repo must be OWNER/REPO (got ${JSON.stringify(flags.repo)}).`);
  if (flags.issue !== undefined && !isIssueNumber(flags.issue)) throw new UsageError(`--issue must be an issue number (got ${JSON.stringify(flags.issue)}).`);
  const repo = flags.repo ?? env.GITHUB_REPOSITORY ?? "";
  const issue = flags.issue ?? env.ESCALATION_ISSUE ?? "";
  const problems: Array<[name: string, what: string]> = [];
  if (needToken && !env.GITHUB_TOKEN) problems.push(["GITHUB_TOKEN", "is not set"]);
  if (!REPO.test(repo)) problems.push(["GITHUB_REPOSITORY", repo ? `must be OWNER/REPO (got ${JSON.stringify(repo)})` : "is not set"]);
  if (!isIssueNumber(issue)) problems.push(["ESCALATION_ISSUE", issue ? `must be an issue number (got ${JSON.stringify(issue)})` : "is not set"]);
  if (problems.length > 0) {
    const names = problems.map(([name]) => name);
    const flagsToo = names.some((name) => name !== "GITHUB_TOKEN") ? " (or pass --repo and --issue)" : "";
    throw new EnvironmentError(
      `${problems.map(([name, what]) => `${name} ${what}`).join(", ")}: the app sets ${names.length === 1 ? "it" : "these"} for the agents it spawns; to ask by hand, set ${names.length === 1 ? "it" : "them"}${flagsToo}.`,
      names,
    );
  }
  return { repo, issue: Number(issue) };
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
    { questions: drafts.questions, kind: parsed.values.kind, approvers, timeoutSeconds: drafts.askTimeout, context: parsed.values.context, paths: parsed.values.path },
    { env: askEnv, repo: parsed.values.repo, issue: parsed.values.issue, dryRun },
  );
  out(dryRun ? result.body : result.url);
  return result;
}
