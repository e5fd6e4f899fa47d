import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../src/config/projectRoot.js";

const BUILT = join(projectRoot, "dist", "cli", "main.js");
const STAMP = join(projectRoot, "dist", ".tsbuildinfo");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * bin/escalate runs dist/: builds it from the current src unless dist is already newer than every
 * source file (`npm test` builds first). A type error elsewhere still emits, so only a missing
 * output is fatal.
 */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(BUILT) && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestSource(join(projectRoot, "src"))) return;
  await new Promise<void>((resolve, reject) => {
    execFile("npm", ["run", "build", "--silent"], { cwd: projectRoot, timeout: 120_000 }, (error, _stdout, stderr) => {
      if (error && !existsSync(BUILT)) reject(new Error(`npm run build failed and ${BUILT} is missing:\n${stderr}`));
      else resolve();
    });
  });
}
