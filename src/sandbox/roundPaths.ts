import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { RoundPaths, SandboxRound } from "./round.js";

/**
 * What one round shows the agent: its working directory read-write; the task file, the recipe's
 * config and the object stores the checkout borrows from (git's alternates: the repository's cache,
 * src/workspace/) read-only. Nothing else of WORKSPACE_ROOT.
 */
export function roundPaths(round: SandboxRound): RoundPaths {
  const readOnly = [round.taskFile, ...(round.recipeDir ? [round.recipeDir] : []), ...alternates(round.workdir)];
  return { workdir: round.workdir, readOnly };
}

/** Read at once (a small file, or none): on the path to the agent's start, a thread pool round trip under load costs more. */
function alternates(workdir: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(workdir, ".git", "objects", "info", "alternates"), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => isAbsolute(line));
}
