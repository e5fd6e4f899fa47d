import { EscalationError } from "../errors.js";
import { askCommand } from "./commands/ask.js";
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
