import type { AppConfig } from "../config/appConfig.js";
import type { AgentRecipe } from "./recipes/index.js";

export type CommandChoice =
  /** `recipe`, for a profile given as one: it writes the tool's config before each spawn. */
  | { argv: readonly string[]; profile?: string; recipe?: AgentRecipe }
  /** `comment`, when set, is posted on the issue: the repository's configuration is wrong, not the server's. */
  | { problem: string; skipped: "unknown agent profile" | "no AGENT_COMMAND"; comment?: string };

/**
 * The agent's command for a repository: the server's AGENT_COMMAND, or the AGENT_PROFILES entry
 * its `.github/escalation.yml` names with `agent_profile`. A repository only ever names a profile;
 * the command and its arguments are the server's. An unknown name runs nothing.
 */
export function chooseAgentCommand(
  agent: Pick<AppConfig["agent"], "command" | "profiles"> & Partial<Pick<AppConfig["agent"], "profileRecipes">>,
  profile: string | undefined,
): CommandChoice {
  if (profile !== undefined) {
    const argv = agent.profiles.get(profile);
    const recipe = agent.profileRecipes?.get(profile);
    if (argv) return { argv, profile, ...(recipe ? { recipe } : {}) };
    const known = [...agent.profiles.keys()].map((name) => `\`${name}\``).join(", ") || "none";
    return {
      problem: `\`.github/escalation.yml\` picks the agent profile "${profile}", which this server does not define`,
      skipped: "unknown agent profile",
      comment: `⚠️ The agent was not started: \`.github/escalation.yml\` sets \`agent_profile: ${profile}\`, but this server defines no such profile (defined: ${known}). Fix the file, then comment \`/retry\`.`,
    };
  }
  if (agent.command) return { argv: agent.command };
  return { problem: "the server has no AGENT_COMMAND configured (see README, Configuration)", skipped: "no AGENT_COMMAND" };
}
