import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { excludePaths } from "../../../src/workspace/excludePaths.js";
import { requirePrograms } from "../../support/programs.js";

beforeAll(() => requirePrograms("git"));

function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), "esc-exclude-"));
  execFileSync("git", ["init", "--quiet", dir]);
  return dir;
}

const untracked = (dir: string) => execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: dir, encoding: "utf8" });

describe("excludePaths", () => {
  it("adds each pattern once to .git/info/exclude, keeping what was there, and git then leaves those files out", async () => {
    const dir = checkout();
    const exclude = join(dir, ".git", "info", "exclude");
    writeFileSync(exclude, "# the operator's own\n*.log");
    await excludePaths(dir, [".aider*"]);
    await excludePaths(dir, [".aider*"]);
    expect(readFileSync(exclude, "utf8")).toBe("# the operator's own\n*.log\n.aider*\n");
    writeFileSync(join(dir, ".aider.chat.history.md"), "# chat\n");
    writeFileSync(join(dir, "app.ts"), "export {};\n");
    expect(untracked(dir)).toBe("?? app.ts\n");
  });
});
