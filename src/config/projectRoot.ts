import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The nearest directory from `dir` up that holds package.json. */
function packageRoot(dir: string): string {
  const parent = dirname(dir);
  return existsSync(join(dir, "package.json")) || parent === dir ? dir : packageRoot(parent);
}

/**
 * The package root, whether running from src/ (tests), dist/ (built) or .tools-build/src/ (the
 * tools' build, tools/tsconfig.json, which compiles the app modules the tools import a level deeper).
 */
export const projectRoot = packageRoot(dirname(fileURLToPath(import.meta.url)));
