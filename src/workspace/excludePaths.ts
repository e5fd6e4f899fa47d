import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { git } from "./git.js";

/**
 * Adds patterns to the checkout's `.git/info/exclude` (once each): files a tool keeps in the
 * working tree for itself stay out of the save at exit, without touching the repository's .gitignore.
 */
export async function excludePaths(checkout: string, patterns: readonly string[]): Promise<void> {
  if (patterns.length === 0) return;
  const file = resolve(checkout, await git(["rev-parse", "--git-path", "info/exclude"], { cwd: checkout }));
  const current = await readFile(file, "utf8").catch(() => "");
  const lines = new Set(current.split("\n"));
  const missing = patterns.filter((pattern) => !lines.has(pattern));
  if (missing.length === 0) return;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${current && !current.endsWith("\n") ? "\n" : ""}${missing.join("\n")}\n`);
}
