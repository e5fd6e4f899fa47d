import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentRecipe } from "./recipe.js";

/** The MCP server's name in the config: Claude Code names its tool `mcp__escalation__ask_human`. */
const SERVER = "escalation";

/**
 * Claude Code in print mode (`claude -p`): the prompt argument says to carry out the task, which
 * arrives on stdin (Claude Code appends piped input to the prompt). Edits are accepted, Bash and
 * ask_human are allowed without a prompt, and only the app's MCP config is loaded (a repository's
 * own `.mcp.json` starts nothing). Flags: Claude Code's CLI reference.
 */
export const claudeCode: AgentRecipe = {
  name: "claude-code",
  argv: [
    "claude",
    "-p",
    "Carry out the task given on standard input.",
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    `Bash,mcp__${SERVER}__ask_human`,
    "--mcp-config",
    "{mcpConfig}",
    "--strict-mcp-config",
    "--output-format",
    "text",
  ],
  keyVariables: ["ANTHROPIC_API_KEY"],
  askHuman: true,
  async prepare({ dir, escalate }) {
    const file = join(dir, "claude-mcp.json");
    // The `.mcp.json` format. No `env`: a stdio server without one inherits Claude Code's whole
    // environment, which holds the GITHUB_TOKEN and ESCALATION_* variables `escalate mcp` reads.
    const config = { mcpServers: { [SERVER]: { type: "stdio", command: escalate, args: ["mcp"] } } };
    await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    return { placeholders: { mcpConfig: file }, env: {} };
  },
};
