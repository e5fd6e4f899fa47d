import { delimiter, join } from "node:path";
import { projectRoot } from "../config/projectRoot.js";

/** Where this installation's `escalate` is; the agent's PATH starts with it (the sandbox shows it elsewhere). */
export const ESCALATE_DIR = join(projectRoot, "bin");

/** Variables an agent may inherit from the app's environment even when not configured. */
const BASE_PASSTHROUGH = ["HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"];

/** The variables of the agent contract (README: "The agent contract"). */
export interface AgentContract {
  token: string;
  apiUrl: string;
  repo: string;
  issue: number;
  round: number;
  taskFile: string;
  /** Where an agent that cannot run `escalate ask` writes its question (src/agent/askFile.ts). */
  askFile: string;
  /** The web and git host, e.g. https://github.com. */
  serverUrl: string;
  /** The round channel (src/channel/): where the agent has the app post its asks and comments, and push. */
  channel: { url: string; token: string };
  /** Where the workspace is on: the branch, its base, and git's authentication for origin (gitCredentials.ts). */
  workspace?: { branch: string; base: string; gitAuth: Record<string, string> };
}

/**
 * Builds the agent's environment as an allowlist: the contract's variables, a PATH with
 * `escalate` first, a few harmless locale variables, the names in AGENT_ENV_PASSTHROUGH, and what a
 * recipe sets (src/agent/recipes/).
 * PRIVATE_KEY, WEBHOOK_SECRET, REDIS_URL and the rest of the app's environment never reach it.
 */
export function agentEnv(
  contract: AgentContract,
  passthrough: readonly string[],
  parent: NodeJS.ProcessEnv = process.env,
  recipe: Record<string, string> = {},
): Record<string, string> {
  // A recipe's variables (where its tool reads the config the app wrote) come first: the contract's win.
  const env: Record<string, string> = { ...recipe };
  for (const name of [...BASE_PASSTHROUGH, ...passthrough]) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH = [ESCALATE_DIR, parent.PATH ?? "/usr/local/bin:/usr/bin:/bin"].join(delimiter);
  env.GITHUB_TOKEN = contract.token;
  env.GITHUB_API_URL = contract.apiUrl;
  env.GITHUB_REPOSITORY = contract.repo;
  env.ESCALATION_ISSUE = String(contract.issue);
  env.ESCALATION_ROUND = String(contract.round);
  env.ESCALATION_TASK_FILE = contract.taskFile;
  env.ESCALATION_ASK_FILE = contract.askFile;
  env.GITHUB_SERVER_URL = contract.serverUrl;
  env.ESCALATION_CHANNEL_URL = contract.channel.url;
  env.ESCALATION_CHANNEL_TOKEN = contract.channel.token;
  if (contract.workspace) {
    env.ESCALATION_BRANCH = contract.workspace.branch;
    env.ESCALATION_BASE = contract.workspace.base;
    // So `git fetch` works with the agent's token and `git push origin HEAD` through the channel, neither in the checkout's config.
    Object.assign(env, contract.workspace.gitAuth);
  }
  return env;
}
