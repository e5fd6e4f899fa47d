/** What a recipe gets to set a tool up for one round. */
export interface RecipeInput {
  /** A directory of the app's, outside the checkout, kept for the round only: nothing in it is committed. */
  dir: string;
  /** The absolute path of `escalate`, the command an MCP config starts as `escalate mcp`. */
  escalate: string;
}

/** What the round's command and environment gain from a recipe's set-up. */
export interface RecipeSetup {
  /** Values for the recipe's own placeholders in its argv (e.g. {mcpConfig}). */
  placeholders: Record<string, string>;
  /** Variables the tool reads its configuration from (e.g. CODEX_HOME), added to the agent's environment. */
  env: Record<string, string>;
}

/**
 * A ready way to run one coding agent non-interactively in the checkout: its argv, the variables its
 * API key may come from (the operator lists them in AGENT_ENV_PASSTHROUGH), and the config files it
 * needs to call `ask_human`, written by `prepare` in the tool's own documented format.
 */
export interface AgentRecipe {
  name: string;
  /** An argv template like AGENT_COMMAND's, with the placeholders `prepare` fills besides the usual ones. */
  argv: readonly string[];
  /** Where the tool reads its API key; none reaches it unless AGENT_ENV_PASSTHROUGH names it. */
  keyVariables: readonly string[];
  /** Patterns of files the tool keeps in the checkout for itself, added to `.git/info/exclude` so they are never committed. */
  exclude?: readonly string[];
  /** Whether the tool has the `ask_human` MCP tool (the task says so); otherwise it asks with `escalate ask`. */
  askHuman: boolean;
  prepare(input: RecipeInput): Promise<RecipeSetup>;
}
