import type { GitHubSimulator } from "../simulator/index.js";

/** Could not mint the installation token for the MCP example line. */
export class AgentTokenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AgentTokenError";
  }
}

/**
 * An installation token of the App for `repo`, as the app hands one to each agent (an hour long):
 * what `escalate ask` or `escalate mcp` run by hand needs, so their question counts as the agent's.
 */
export async function agentToken(sim: Pick<GitHubSimulator, "apiUrl" | "appJwt">, installationId: number, repo: string): Promise<string> {
  const response = await fetch(`${sim.apiUrl}/app/installations/${installationId}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${sim.appJwt()}`, "content-type": "application/json" },
    body: JSON.stringify({ repositories: [repo.split("/")[1]], permissions: { issues: "write", metadata: "read" } }),
  });
  if (!response.ok) throw new AgentTokenError(`The simulator refused an installation token: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}
