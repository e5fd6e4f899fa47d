import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ASK_FILE } from "../askFile.js";
import type { AgentRecipe } from "./recipe.js";

/** What aider reads (with `--read`) besides its task: how to ask when it cannot run `escalate ask`. */
const CONVENTIONS = [
  "# Working for escalation",
  "",
  "You cannot run shell commands here, so do not suggest `escalate ask` or any other command.",
  `When you need a human's decision, create the file \`${ASK_FILE}\` (relative to the repository root)`,
  "holding one JSON object, then stop making changes. For example:",
  "",
  "```json",
  JSON.stringify(
    {
      questions: [{ text: "Which database should the cache use?", options: ["Postgres", "SQLite"], default: "SQLite" }],
      context: "One short paragraph: what you are doing and why you ask.",
    },
    null,
    2,
  ),
  "```",
  "",
  '`questions` is required (one or more, each with `text`; `options`, `default` and `timeout` such as "2h" are optional);',
  "`context`, `timeout` and `paths` (repository paths the question is about) are optional. Nothing else may be in the object.",
  `The question is posted on the issue; you are started again with the answer in your task. Never edit \`${ASK_FILE}\` for any other purpose.`,
  "",
].join("\n");

/**
 * aider in scripting mode: `--message-file` sends the task once and exits, `--yes-always` answers its
 * confirmations (creating files among them; it still refuses every shell command, so aider cannot run
 * `escalate ask` and asks through the ask file instead, as the conventions file tells it). The app
 * commits at exit, so aider's own commits are off; `--no-gitignore` keeps it from editing the
 * repository's .gitignore (its `.aider*` files are excluded in the checkout's .git/info/exclude instead).
 * `--no-analytics`, not `--analytics-disable`: off for the run, where the latter writes a permanent
 * opt-out into the operator's HOME; without either, aider may ask to opt in, and --yes-always says yes.
 * The model is aider's choice from the key it finds, or AIDER_MODEL.
 * Flags: aider's options reference, "Scripting aider" and "Analytics".
 */
export const aider: AgentRecipe = {
  name: "aider",
  argv: [
    "aider",
    "--message-file",
    "{taskFile}",
    "--read",
    "{conventions}",
    "--yes-always",
    "--no-auto-commits",
    "--no-gitignore",
    "--no-check-update",
    "--no-show-model-warnings",
    "--no-pretty",
    "--no-stream",
    "--no-analytics",
  ],
  keyVariables: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
  // Its chat and input histories and its repository map's tags cache, in the repository's root.
  exclude: [".aider*"],
  askHuman: false,
  async prepare({ dir }) {
    const file = join(dir, "aider-conventions.md");
    await writeFile(file, CONVENTIONS, { mode: 0o600 });
    return { placeholders: { conventions: file }, env: {} };
  },
};
