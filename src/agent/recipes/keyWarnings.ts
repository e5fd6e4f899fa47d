import type { AppConfig } from "../../config/appConfig.js";

/**
 * One start-up warning per recipe profile whose tool would get none of its API key variables:
 * the agent's environment is an allowlist, so a key the operator set is invisible until
 * AGENT_ENV_PASSTHROUGH names it. A warning, not an error: the tool may hold a login of its own.
 */
export function recipeKeyWarnings(agent: Pick<AppConfig["agent"], "profileRecipes" | "envPassthrough">): string[] {
  const passed = new Set(agent.envPassthrough);
  return [...agent.profileRecipes]
    .filter(([, recipe]) => !recipe.keyVariables.some((name) => passed.has(name)))
    .map(
      ([profile, recipe]) =>
        `AGENT_PROFILES.${profile} runs the ${recipe.name} recipe, but AGENT_ENV_PASSTHROUGH names none of ${recipe.keyVariables.join(", ")}: the tool gets no API key from the app's environment (README, "Recipes").`,
    );
}
