import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../src/config/projectRoot.js";

/** A build: the npm script that runs it, a file it emits, its stamp, and the source directories it compiles. */
interface Build {
  script: string;
  built: string;
  stamp: string;
  sources: string[];
}

const APP: Build = { script: "build", built: join(projectRoot, "dist", "cli", "main.js"), stamp: join(projectRoot, "dist", ".tsbuildinfo"), sources: ["src"] };
const TOOLS: Build = {
  script: "build:tools",
  built: join(projectRoot, ".tools-build", "tools", "playground", "main.js"),
  stamp: join(projectRoot, ".tools-build", ".tsbuildinfo"),
  sources: ["src", "tools"],
};

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Runs the build unless its output is already newer than every source file (`npm test` builds
 * first). A type error elsewhere still emits, so only a missing output is fatal.
 */
async function ensure({ script, built, stamp, sources }: Build): Promise<void> {
  const newest = Math.max(...sources.map((dir) => newestSource(join(projectRoot, dir))));
  if (existsSync(built) && existsSync(stamp) && statSync(stamp).mtimeMs >= newest) return;
  await new Promise<void>((resolve, reject) => {
    execFile("npm", ["run", script, "--silent"], { cwd: projectRoot, timeout: 120_000 }, (error, _stdout, stderr) => {
      if (error && !existsSync(built)) reject(new Error(`npm run ${script} failed and ${built} is missing:\n${stderr}`));
      else resolve();
    });
  });
}

/** bin/escalate runs dist/: builds it from the current src when older than it. */
export async function ensureBuilt(): Promise<void> {
  await ensure(APP);
}

/** The tools run from .tools-build/ (tools/tsconfig.json) and start the app's dist/: builds both. */
export async function ensureToolsBuilt(): Promise<void> {
  await ensure(APP);
  await ensure(TOOLS);
}
