import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { GitHubSimulator } from "../../tools/simulator/index.js";
import { requirePrograms } from "./programs.js";

/** Test helpers for the simulator's git server: tokens as the app mints them, and plain git. */

/** An installation token of `repo`'s installation, narrowed to it and `permissions` as the app's agent token is. */
export async function installationToken(sim: GitHubSimulator, repo: string, permissions: Record<string, string>): Promise<string> {
  const found = await fetch(`${sim.apiUrl}/repos/${repo}/installation`, { headers: { authorization: `Bearer ${sim.appJwt()}` } });
  const { id: installationId } = (await found.json()) as { id: number };
  const response = await fetch(`${sim.apiUrl}/app/installations/${installationId}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${sim.appJwt()}`, "content-type": "application/json" },
    body: JSON.stringify({ repositories: [repo.split("/")[1]], permissions }),
  });
  if (response.status !== 201) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/** git's environment in tests: PATH and HOME, no prompt, no system or global configuration. */
export const ISOLATED_GIT_ENV = {
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/",
  GIT_TERMINAL_PROMPT: "0",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** Runs git with only the given environment on top of ISOLATED_GIT_ENV; rejects with its stderr. */
export async function runGit(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  requirePrograms("git");
  const { stdout } = await promisify(execFile)("git", args, {
    cwd: options.cwd,
    env: { ...ISOLATED_GIT_ENV, ...options.env },
  });
  return stdout.trim();
}
