import { readFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { RoundPaths, SandboxRound } from "./sandbox.js";

/**
 * What one round shows the agent: its working directory read-write; the task file, the recipe's
 * config and the object stores the checkout borrows from (git's alternates: the repository's cache,
 * src/workspace/) read-only. Nothing else of WORKSPACE_ROOT.
 */
export async function roundPaths(round: SandboxRound): Promise<RoundPaths> {
  const readOnly = [round.taskFile, ...(round.recipeDir ? [round.recipeDir] : []), ...(await alternates(round.workdir))];
  return { workdir: round.workdir, readOnly };
}

async function alternates(workdir: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(join(workdir, ".git", "objects", "info", "alternates"), "utf8");
  } catch {
    return [];
  }
  return text.split("\n").map((line) => line.trim()).filter((line) => isAbsolute(line));
}
