import { accessSync, constants, readFileSync } from "node:fs";
import { basename, delimiter, join } from "node:path";
import { projectRoot } from "../../src/config/projectRoot.js";

/** scripts/programs.txt: every program the tests and tools start, with its Debian package. */
export const PROGRAMS_FILE = join(projectRoot, "scripts", "programs.txt");

/** Program name → Debian package, as scripts/programs.txt lists them. */
export function programPackages(text = readFileSync(PROGRAMS_FILE, "utf8")): Map<string, string> {
  const table = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [program, pkg] = line.trim().split(/\s+/);
    if (program && pkg && !program.startsWith("#")) table.set(program, pkg);
  }
  return table;
}

/** A program a test needs is not installed; the message names the package that has it. */
export class MissingProgramError extends Error {
  override name = "MissingProgramError";
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Fails, in one line naming the Debian package to install, unless each program is on the PATH (a
 * path: executable there). Called before a test starts one, so a machine without it reads what to do
 * rather than an unhandled `spawn … ENOENT`.
 */
export function requirePrograms(...programs: string[]): void {
  const dirs = (process.env.PATH ?? "/usr/bin:/bin").split(delimiter).filter(Boolean);
  const table = programPackages();
  for (const program of programs) {
    const found = program.includes("/") ? executable(program) : dirs.some((dir) => executable(join(dir, program)));
    if (found) continue;
    const pkg = table.get(basename(program));
    throw new MissingProgramError(
      pkg
        ? `${program} is not installed: apt-get install -y ${pkg} (.ci/run installs every program in scripts/programs.txt)`
        : `${program} is not installed, and scripts/programs.txt does not name its package: add it there`,
    );
  }
}
