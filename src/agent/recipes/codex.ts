import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ASK_ENV_NAMES } from "../../cli/ask/askEnv.js";
import type { AgentRecipe } from "./recipe.js";

/** A TOML basic string: JSON's string escapes (\", \\, \n, \u0000) are TOML's too. */
const tomlString = (text: string): string => JSON.stringify(text);

/**
 * The Codex CLI's `codex exec`: the prompt argument says to carry out the task, which arrives on
 * stdin (exec reads piped stdin as context beside the prompt). `--sandbox workspace-write` lets it
 * edit the checkout; exec never stops for an approval. `--skip-git-repo-check` so it also runs in
 * the fresh directory a repository without the workspace gets.
 *
 * Its configuration is a CODEX_HOME of the round's own, holding only `config.toml` with the
 * ask_human server: the operator's ~/.codex (and a `codex login` there) is not read, so the key
 * comes from CODEX_API_KEY, which `codex exec` reads.
 */
export const codex: AgentRecipe = {
  name: "codex",
  argv: ["codex", "exec", "--sandbox", "workspace-write", "--skip-git-repo-check", "Carry out the task given on standard input."],
  keyVariables: ["CODEX_API_KEY"],
  askHuman: true,
  async prepare({ dir, escalate }) {
    const home = join(dir, "codex-home");
    await mkdir(home, { recursive: true, mode: 0o700 });
    const config = [
      "# Written by escalation for one round: the ask_human tool of `escalate mcp`.",
      "[mcp_servers.escalation]",
      `command = ${tomlString(escalate)}`,
      `args = [${tomlString("mcp")}]`,
      // Codex starts an MCP server with a cleared environment (HOME, PATH and a few more): these
      // are forwarded by name, their values never written here.
      `env_vars = [${ASK_ENV_NAMES.map(tomlString).join(", ")}]`,
      "",
    ].join("\n");
    await writeFile(join(home, "config.toml"), config, { mode: 0o600 });
    return { placeholders: {}, env: { CODEX_HOME: home } };
  },
};
