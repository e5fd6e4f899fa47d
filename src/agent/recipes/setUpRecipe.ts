import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { AgentError } from "../../errors.js";
import type { AgentRecipe, RecipeSetup } from "./recipe.js";

export interface RecipeRound extends RecipeSetup {
  /** The directory holding the round's config files (read-only in the sandbox). */
  dir: string;
  /** Removes the round's config files; called once the agent has exited. */
  dispose(): Promise<void>;
}

/**
 * Writes a recipe's config files for one round into a directory of their own under `root`
 * (AGENT_WORKDIR_ROOT), outside the checkout: the save at exit never sees them, and they hold no
 * token (the tools pass the agent's environment to `escalate mcp`). `escalate` is the path the MCP
 * config starts: this installation's own as the agent sees it (Sandbox.escalate), whatever its PATH holds.
 */
export async function setUpRecipe(recipe: AgentRecipe, root: string, escalate: string): Promise<RecipeRound> {
  const dir = await mkdtemp(join(root, "escalation-recipe-"));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    return { ...(await recipe.prepare({ dir, escalate })), dir, dispose };
  } catch (error) {
    await dispose();
    throw new AgentError(
      `Could not write the ${recipe.name} recipe's config under ${root}: ${(error as Error).message}. Check that AGENT_WORKDIR_ROOT is writable.`,
      { cause: error },
    );
  }
}
