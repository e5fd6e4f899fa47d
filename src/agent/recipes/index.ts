import { aider } from "./aider.js";
import { claudeCode } from "./claudeCode.js";
import { codex } from "./codex.js";
import type { AgentRecipe } from "./recipe.js";

export type { AgentRecipe } from "./recipe.js";

/** The recipes an AGENT_PROFILES entry may name, as `{"recipe": "<name>"}`. */
export const RECIPES: ReadonlyMap<string, AgentRecipe> = new Map([claudeCode, codex, aider].map((recipe) => [recipe.name, recipe]));
