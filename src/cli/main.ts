import { EscalationError } from "../errors.js";
import { answerCommand } from "./commands/answer.js";
import { askCommand } from "./commands/ask.js";
import { mcpCommand } from "./commands/mcp.js";
import { reconcileCommand } from "./commands/reconcile.js";
import { statusCommand } from "./commands/status.js";
import { USAGE, UsageError } from "./usage.js";

/** Entry point of the `escalate` command. Sets process.exitCode: 0 ok, 1 failure, 2 usage. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "ask":
        await askCommand(rest, env, (line) => console.log(line));
        return;
      case "status":
        await statusCommand(rest, env, (text) => console.log(text));
        return;
      case "answer":
        await answerCommand(rest, env, (line) => console.log(line));
        return;
      case "reconcile":
        process.exitCode = await reconcileCommand(rest, env, (line) => console.log(line));
        return;
      case "mcp":
        await mcpCommand(rest, env);
        return;
      case "help":
      case "--help":
      case "-h":
        console.log(USAGE);
        return;
      default:
        throw new UsageError(command ? `Unknown command "${command}".` : "No command given.");
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`escalate: ${error.message}\n\n${USAGE}`);
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
