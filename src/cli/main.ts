import { EscalationError } from "../errors.js";
import { askCommand } from "./commands/ask.js";
import { EnvironmentError, USAGE, UsageError, asksForHelp, commandHelp, isCommand } from "./usage.js";

/**
 * Entry point of the `escalate` command. Sets process.exitCode: 0 ok, 1 failure, 2 bad usage or a
 * variable missing or malformed.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (isCommand(command) && asksForHelp(rest)) {
      console.log(commandHelp(command));
      return;
    }
    switch (command) {
      case "ask":
        await askCommand(rest, env, (line) => console.log(line));
        return;
      case "comment":
        await (await import("./commands/comment.js")).commentCommand(rest, env, (line) => console.log(line), readStdin);
        return;
      case "status":
        // The other commands load on demand: `escalate ask`, run by every agent, starts in ~0.2 s.
        await (await import("./commands/status.js")).statusCommand(rest, env, (text) => console.log(text));
        return;
      case "answer":
        await (await import("./commands/answer.js")).answerCommand(rest, env, (line) => console.log(line));
        return;
      case "reconcile":
        process.exitCode = await (await import("./commands/reconcile.js")).reconcileCommand(rest, env, (line) => console.log(line));
        return;
      case "mcp":
        await (await import("./commands/mcp.js")).mcpCommand(rest, env);
        return;
      case "help":
        console.log(isCommand(rest[0]) ? commandHelp(rest[0]) : USAGE);
        return;
      case "--help":
      case "-h":
        console.log(USAGE);
        return;
      default:
        throw new UsageError(command ? `Unknown command "${command}".` : "No command given.");
    }
  } catch (error) {
    if (error instanceof UsageError) {
      // A bad flag of a known command gets that command's help; anything else the overview.
      console.error(`escalate: ${error.message}\n\n${isCommand(command) ? commandHelp(command) : USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof EnvironmentError) {
      // The flags were fine: the usage text would bury the one line saying what to set.
      console.error(`escalate: ${error.message}`);
      process.exitCode = 2;
    } else if (error instanceof EscalationError) {
      console.error(`escalate: ${error.message}`);
      process.exitCode = 1;
    } else {
      console.error(`escalate: ${(error as Error).stack ?? String(error)}`);
      process.exitCode = 1;
    }
  }
}

/** `--body-file -`: the whole of standard input. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
