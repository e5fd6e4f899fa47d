import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../../src/config/projectRoot.js";

/** The folders README's layout block lists directly under `src/` (two-space indent, `name/`). */
function layoutFolders(readme: string): string[] {
  const block = /```\nsrc\/[^\n]*\n([\s\S]*?)\ntools\//.exec(readme)?.[1] ?? "";
  return [...block.matchAll(/^ {2}((?:[a-z]+\/(?:, )?)+)/gm)].flatMap((m) => m[1]!.split(", ").map((name) => name.replace(/\/$/, "")));
}

/** Every `src/<folder>/` ARCHITECTURE.md names. */
function namedFolders(text: string): string[] {
  return [...new Set([...text.matchAll(/`src\/([a-z]+)\/`/g)].map((m) => m[1]!))];
}

const srcFolders = () =>
  readdirSync(join(projectRoot, "src"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

describe("the layout the docs draw is the layout of src/", () => {
  it("README's layout lists every folder of src/ and no other", () => {
    expect(layoutFolders(readFileSync(join(projectRoot, "README.md"), "utf8")).sort()).toEqual(srcFolders());
  });

  it("every folder ARCHITECTURE.md names exists", () => {
    const named = namedFolders(readFileSync(join(projectRoot, "ARCHITECTURE.md"), "utf8"));
    expect(named.length).toBeGreaterThan(5);
    for (const folder of named) expect(srcFolders()).toContain(folder);
  });

  it("a folder missing from the layout block is found", () => {
    const readme = "```\nsrc/ the loop\n  webhook/    one\n  http/, observe/   two\n              more\ntools/ x\n```";
    expect(layoutFolders(readme)).toEqual(["webhook", "http", "observe"]);
    expect(namedFolders("`src/gates/` and `src/nowhere/`")).toEqual(["gates", "nowhere"]);
  });
});
