import { z } from "zod";
import { PROXY_ENV_SHAPE } from "../proxyFetch.js";
import { invalidEnvironment } from "../usage.js";

/** What the app sets for the agents it spawns (src/agent/agentEnv.ts) and an ask needs. */
const AGENT_ENV_SHAPE = {
  GITHUB_TOKEN: z.string().min(1).optional(),
  GITHUB_API_URL: z.string().url().default("https://api.github.com"),
  GITHUB_REPOSITORY: z.string().optional(),
  ESCALATION_ISSUE: z.string().optional(),
  ESCALATION_ROUND: z.string().regex(/^\d+$/, "must be a round number (0, 1, 2, …)").optional(),
  /** The round channel (src/channel/channelPaths.ts): where a round's agent has the app post for it. */
  ESCALATION_CHANNEL_URL: z.string().url().optional(),
  ESCALATION_CHANNEL_TOKEN: z.string().min(1).optional(),
};

/** The agent's variables and the proxy ones, as `escalate ask` and `escalate mcp` read them. */
export const CliEnv = z.object({ ...AGENT_ENV_SHAPE, ...PROXY_ENV_SHAPE });

/** The agent's variables `escalate ask` and `escalate mcp` read, without the proxy ones. */
export const AGENT_ENV_NAMES = Object.keys(AGENT_ENV_SHAPE) as readonly string[];

/** The variables `escalate ask` and `escalate mcp` read: a tool that clears its MCP servers' environment must pass these. */
export const ASK_ENV_NAMES = Object.keys(CliEnv.shape) as readonly string[];

/** The environment the app gives an agent (see src/agent/agentEnv.ts). */
export type AskEnv = z.infer<typeof CliEnv>;

/** Reads the agent's environment; a malformed value is an EnvironmentError naming the variable. */
export function readAskEnv(env: NodeJS.ProcessEnv): AskEnv {
  const e = CliEnv.safeParse(env);
  if (!e.success) throw invalidEnvironment(e.error.issues);
  return e.data;
}
