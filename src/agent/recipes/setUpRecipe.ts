import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { projectRoot } from "../../config/projectRoot.js";
import { AgentError } from "../../errors.js";
import type { AgentRecipe, RecipeSetup } from "./recipe.js";

/** The `escalate` an MCP config starts: this installation's own, whatever the agent's PATH holds. */
export const ESCALATE = join(projectRoot, "bin", "escalate");

export interface RecipeRound extends RecipeSetup {
  /** Removes the round's config files; called once the agent has exited. */
  dispose(): Promise<void>;
}

/**
 * Writes a recipe's config files for one round into a directory of their own under `root`
 * (AGENT_WORKDIR_ROOT), outside the checkout: the save at exit never sees them, and they hold no
 * token (the tools pass the agent's environment to `escalate mcp`).
 */
export async function setUpRecipe(recipe: AgentRecipe, root: string): Promise<RecipeRound> {
  const dir = await mkdtemp(join(root, "escalation-recipe-"));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    return { ...(await recipe.prepare({ dir, escalate: ESCALATE })), dispose };
  } catch (error) {
    await dispose();
    throw new AgentError(`Could not write the ${recipe.name} recipe's config under ${root}: ${(error as Error).message}. Check that AGENT_WORKDIR_ROOT is writable.`, { cause: error });
  }
}
