import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../../src/config/projectRoot.js";
import { MissingProgramError, programPackages, requirePrograms } from "../../support/programs.js";

const FIXTURE = join(projectRoot, "test", "unit", "layout", "programsFixture");

/**
 * Not from Debian: Node's own and this project's (installed with Node or by `npm ci`), the agents'
 * CLIs the recipes start (a team installs them; tests run stand-ins) and the placeholder `agent` of
 * tests that build a command without starting it.
 */
const NOT_DEBIAN = new Set(["node", "npm", "escalate", "aider", "claude", "codex", "agent"]);

/**
 * What starts a program: a spawn-like call with a literal first argument, an argv array
 * (`argv: ["sh", …]`, `? argv : ["setpriv", …]`), a lookup on the PATH (`findCommand`, `onPath`),
 * or an absolute path to an executable. A program named only inside a shell script is not seen:
 * list it by hand.
 */
const STARTS = [
  /\b(?:spawn|spawnSync|execFile|execFileSync|execa|execaSync|startProcess|findCommand|onPath)\)?\(\s*["']([^"'$\s]+)["']/g,
  /\bargv\s*:\s*\[\s*["']([^"'$\s]+)["']/g,
  /["'`]((?:\/usr)?\/s?bin\/[\w.-]+)["'`\s]/g,
];

/** Every .ts, .mjs and .js file under `dir`, the fixture's folder left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === FIXTURE || entry.name === "node_modules" ? [] : sources(path);
    return /\.(ts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Each program the files under `dirs` start, by name (an absolute path by its last part), with the first file that does. */
function startedPrograms(dirs: string[]): Map<string, string> {
  const started = new Map<string, string>();
  for (const file of dirs.flatMap((dir) => sources(join(projectRoot, dir)))) {
    // An assertion names programs (an image's ENTRYPOINT, a bwrap flag) without starting them.
    const text = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => !line.includes("expect("))
      .join("\n");
    for (const pattern of STARTS)
      for (const match of text.matchAll(pattern)) {
        const program = basename(match[1]!);
        if (!NOT_DEBIAN.has(program) && !started.has(program)) started.set(program, relative(projectRoot, file));
      }
  }
  return started;
}

describe("every program the tests and tools start is installed by .ci/run (issue 36)", () => {
  const listed = programPackages();

  it("scripts/programs.txt lists every program that src/, test/, tools/ and scripts/ start", () => {
    const started = startedPrograms(["src", "test", "tools", "scripts"]);
    for (const program of ["redis-server", "redis-sentinel", "redis-cli", "git", "chromium", "bwrap", "nsenter", "setpriv", "sh"])
      expect(started.has(program), `${program} is started somewhere`).toBe(true);
    const unlisted = [...started].filter(([program]) => !listed.has(program)).map(([program, file]) => `${program} (${file})`);
    expect(unlisted, "programs started but missing from scripts/programs.txt").toEqual([]);
  });

  it("finds a program that the list lacks (the check can fail)", () => {
    const found = startedPrograms(["test/unit/layout/programsFixture"]);
    expect([...found.keys()].sort()).toEqual(["frobnicate", "frobnicate-helper"]);
  });

  it(".ci/run runs scripts/install-programs.sh before npm ci, and it would install every listed package on a bare machine", () => {
    const run = readFileSync(join(projectRoot, ".ci", "run"), "utf8");
    expect(run).toMatch(/^bash scripts\/install-programs\.sh$/m);
    expect(run.indexOf("install-programs.sh")).toBeLessThan(run.indexOf("npm ci"));
    const bare = mkdtempSync(join(tmpdir(), "esc-no-programs-"));
    try {
      const wanted = execFileSync("/bin/bash", [join(projectRoot, "scripts", "install-programs.sh"), "--print"], { env: { PATH: bare }, encoding: "utf8" });
      expect(wanted.trim().split("\n").sort()).toEqual([...new Set(listed.values())].sort());
    } finally {
      rmSync(bare, { recursive: true });
    }
  });

  it("README's install line names every package of the list", () => {
    const readme = readFileSync(join(projectRoot, "README.md"), "utf8");
    const line = /^On Debian: `apt-get install -y ([^`]+)`/m.exec(readme)?.[1]?.split(" ") ?? [];
    for (const pkg of new Set(listed.values())) expect(line, `README's apt-get line installs ${pkg}`).toContain(pkg);
  });

  it("a test that needs a missing program fails in one line naming the package to install", () => {
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      expect(() => requirePrograms("redis-sentinel")).toThrow(
        new MissingProgramError("redis-sentinel is not installed: apt-get install -y redis-sentinel (.ci/run installs every program in scripts/programs.txt)"),
      );
      expect(() => requirePrograms("/nonexistent/chromium")).toThrow(/^\/nonexistent\/chromium is not installed: apt-get install -y chromium /);
      expect(() => requirePrograms("frobnicate")).toThrow(/scripts\/programs\.txt does not name its package/);
    } finally {
      process.env.PATH = path;
    }
    expect(() => requirePrograms("sh", "/bin/sh")).not.toThrow();
  });
});
