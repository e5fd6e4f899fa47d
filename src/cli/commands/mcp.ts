import { readFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { projectRoot } from "../../config/projectRoot.js";
import { APPROVAL_KIND, MAX_APPROVERS } from "../../domain.js";
import { EscalationError } from "../../errors.js";
import { parseDuration } from "../../protocol/duration.js";
import { EnvironmentError, UsageError } from "../usage.js";
import { AGENT_ENV_NAMES } from "../ask/askEnv.js";
import { readAskEnvAndTarget } from "../ask/readAskEnvAndTarget.js";
import { submitAsk, type AskDraft, type AskResult } from "../ask/submitAsk.js";

const Timeout = z
  .union([z.string().min(1), z.number().int().positive()])
  .describe('How long to wait before the default is taken (or a reminder is posted): "30m", "2h", "1d", or seconds.');

/** The ask_human tool's arguments, the MCP twin of `escalate ask`'s flags. */
export const askHumanInput = {
  questions: z
    .array(
      z.object({
        text: z.string().min(1).describe("The question, as the human will read it."),
        options: z.array(z.string().min(1)).optional().describe("Choices the human can pick by number or name."),
        default: z.string().min(1).optional().describe("The option (label or number) or text taken if nobody answers in time."),
        timeout: Timeout.optional(),
      }),
    )
    .min(1)
    .max(20)
    .describe("One or more questions; ask everything you need at once."),
  timeout: Timeout.optional().describe("A timeout for the whole ask (questions may set their own)."),
  context: z.string().optional().describe("A short paragraph shown above the questions: what you are doing and why you ask."),
  paths: z
    .array(z.string().min(1))
    .max(20)
    .optional()
    .describe("Repository paths the question is about (files, or directories ending in /); the repository may let only their code owners answer."),
  kind: z
    .enum(["question", APPROVAL_KIND])
    .optional()
    .describe('"approval" asks people to approve or deny one question (no options, no default); "question" (the default) asks for answers.'),
  approvers: z
    .number()
    .int()
    .min(1)
    .max(MAX_APPROVERS)
    .optional()
    .describe('With kind "approval": how many distinct people must approve (the repository may require more).'),
};

const DESCRIPTION = [
  "Ask the human maintainers a question on the GitHub issue you are working on, then STOP.",
  "The question is posted as a comment; you are not kept waiting: after calling this tool, finish (save your work) and exit.",
  "You will be started again with the human's answer in your task.",
].join(" ");

const seconds = (value: string | number | undefined, what: string): number | undefined =>
  value === undefined ? undefined : parseDuration(String(value), what);

/** Turns the tool's arguments into the draft `escalate ask` builds from its flags. */
export function draftFromTool(args: {
  questions: Array<{ text: string; options?: string[]; default?: string; timeout?: string | number }>;
  timeout?: string | number;
  context?: string;
  paths?: string[];
  kind?: string;
  approvers?: number;
}): AskDraft {
  try {
    return {
      questions: args.questions.map((q, i) => ({
        text: q.text,
        options: q.options ?? [],
        default: q.default,
        timeoutSeconds: seconds(q.timeout, `questions[${i}].timeout`),
      })),
      timeoutSeconds: seconds(args.timeout, "timeout"),
      context: args.context,
      paths: args.paths,
      ...(args.kind ? { kind: args.kind } : {}),
      ...(args.approvers !== undefined ? { approvers: args.approvers } : {}),
    };
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
}

/** What the agent reads back: posted, and it must end now. */
export function postedMessage(result: AskResult, repo: string, issue: string): string {
  const count = result.ask.questions.length;
  return [
    `Your ${count === 1 ? "question is" : `${count} questions are`} posted on ${repo}#${issue}: ${result.url}`,
    "Do not wait for the answer and do not ask again: finish now. Save or commit any work in progress, end your turn and exit.",
    "You will be started again with the human's answer included in your task.",
  ].join("\n");
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/**
 * What the agent reads when the server's environment lacks what an ask needs: the MCP client
 * started it without the agent's variables (many pass servers only PATH and HOME). No argument
 * can fix that, so the model is told to stop and report it rather than call again.
 */
function misconfiguredMessage(error: EnvironmentError): string {
  const names = AGENT_ENV_NAMES.join(", ");
  return [
    `The question was NOT posted: the escalation MCP server was started without a usable ${error.variables.join(", ")} in its environment.`,
    "This is a configuration problem of the MCP client that started the server. You cannot fix it, and calling ask_human again will fail the same way.",
    `Stop, and report to the user that the MCP client's configuration for the escalation server must pass ${names} in the server's env (in a sandbox also HTTPS_PROXY, HTTP_PROXY, NO_PROXY).`,
  ].join("\n");
}

/** Builds the MCP server with its one tool; `env` is read at each call (the agent's environment). */
export function createMcpServer(env: NodeJS.ProcessEnv): McpServer {
  const server = new McpServer({ name: "escalation", version: packageVersion() });
  server.registerTool("ask_human", { title: "Ask a human", description: DESCRIPTION, inputSchema: askHumanInput }, async (args) => {
    try {
      // The environment first: a server started without it can post nothing, whatever the arguments.
      const { env: askEnv, target } = readAskEnvAndTarget(env, {}, true);
      const { repo, issue } = target;
      const result = await submitAsk(draftFromTool(args), { env: askEnv });
      return { content: [{ type: "text", text: postedMessage(result, repo, String(issue)) }] };
    } catch (error) {
      if (error instanceof EnvironmentError) return { isError: true, content: [{ type: "text", text: misconfiguredMessage(error) }] };
      if (!(error instanceof EscalationError)) throw error;
      // The agent reads this: say what went wrong; a usage error can be fixed and retried.
      const hint = error instanceof UsageError ? " Fix the arguments and call ask_human again." : " The question was NOT posted.";
      return { isError: true, content: [{ type: "text", text: `Could not ask: ${error.message}${hint}` }] };
    }
  });
  return server;
}

/** `escalate mcp`: serves ask_human over stdio until the client closes stdin. */
export async function mcpCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  if (argv.length > 0) throw new UsageError(`mcp takes no arguments (got ${argv.map((a) => JSON.stringify(a)).join(" ")}).`);
  const server = createMcpServer(env);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.once("end", () => void server.close().finally(resolve));
  });
  await server.connect(transport);
  await closed;
}
