import { z } from "zod";
import { ConfigError } from "../errors.js";
import { RECIPES, type AgentRecipe } from "../agent/recipes/index.js";
import { checkPlaceholders } from "./agentPlaceholders.js";
import { splitCommand } from "./splitCommand.js";

/** What `agent_profile` in a repository's `.github/escalation.yml` may name (src/config/repoConfig.ts). */
export const PROFILE_NAME = /^[a-z0-9_-]{1,40}$/;

const RecipeProfile = z.object({ recipe: z.string() }).strict();

/** The recipe a profile given as `{"recipe": name}` names. */
function recipeOf(value: unknown, what: string): AgentRecipe {
  const parsed = RecipeProfile.safeParse(value);
  if (!parsed.success) throw new ConfigError(`${what} must be a command string or a JSON array of argv words, or {"recipe": "<name>"} (README, "Recipes").`);
  const recipe = RECIPES.get(parsed.data.recipe);
  if (!recipe) {
    const known = [...RECIPES.keys()].map((r) => `"${r}"`).join(", ");
    throw new ConfigError(`${what} names the recipe ${JSON.stringify(parsed.data.recipe)}, which does not exist; the recipes are ${known}.`);
  }
  return recipe;
}

/**
 * AGENT_PROFILES: a JSON object mapping a profile name to a command, either a template split
 * without a shell like AGENT_COMMAND or a JSON array of argv words, or to `{"recipe": name}`, a
 * ready command for a known coding agent. Each is checked like AGENT_COMMAND at start-up
 * (quoting, placeholders).
 */
export function parseProfiles(text: string | undefined): { profiles: Map<string, string[]>; recipes: Map<string, AgentRecipe> } {
  const profiles = new Map<string, string[]>();
  const recipes = new Map<string, AgentRecipe>();
  if (text === undefined || text.trim() === "") return { profiles, recipes };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`AGENT_PROFILES must be a JSON object like {"fast": "my-agent --fast {taskFile}"}: ${(error as Error).message}`, { cause: error });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('AGENT_PROFILES must be a JSON object like {"fast": "my-agent --fast {taskFile}"} mapping names to commands.');
  }
  for (const [name, value] of Object.entries(parsed)) {
    const what = `AGENT_PROFILES.${name}`;
    if (!PROFILE_NAME.test(name)) throw new ConfigError(`${what}: a profile name must be 1-40 lowercase letters, digits, _ or -.`);
    let argv: string[];
    if (typeof value === "string") argv = splitCommand(value, what);
    else if (Array.isArray(value)) argv = splitCommand(JSON.stringify(value), what);
    else {
      const recipe = recipeOf(value, what);
      recipes.set(name, recipe);
      argv = [...recipe.argv];
    }
    if (!recipes.has(name)) checkPlaceholders(argv, what);
    profiles.set(name, argv);
  }
  return { profiles, recipes };
}
