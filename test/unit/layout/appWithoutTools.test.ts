import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const TOOLS = resolve("tools");

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Each import of tools/ under `dir` (static, type-only, re-export or dynamic), as "file -> specifier". */
function toolsImportsIn(dir: string): string[] {
  return sources(resolve(dir)).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["'](\.[^"']*)["']/g)]
      .map((match) => match[1]!)
      .filter((specifier) => !relative(TOOLS, resolve(dirname(file), specifier)).startsWith(".."))
      .map((specifier) => `${relative(process.cwd(), file)} -> ${specifier}`),
  );
}

describe("the app without the tools (issue 16)", () => {
  it("has no module in src/ that imports tools/, so dist/ and the image hold the app only", () => {
    expect(toolsImportsIn("src")).toEqual([]);
  });

  it("finds an import of tools/ when there is one (the check can fail)", () => {
    expect(toolsImportsIn("test/unit/layout/toolsFixture")).toEqual(["test/unit/layout/toolsFixture/usesSimulator.ts -> ../../../../tools/simulator/index.js"]);
  });

  it("builds dist/ from src/ only", () => {
    const build = JSON.parse(readFileSync("tsconfig.build.json", "utf8")) as { include: string[]; compilerOptions: { rootDir: string } };
    expect(build.include).toEqual(["src"]);
    expect(build.compilerOptions.rootDir).toBe("src");
  });
});
