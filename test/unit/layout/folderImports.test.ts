import { resolve } from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";

/** A folder of `src/`, or "(root)" for its top-level files (domain.ts, errors.ts, services.ts …). */
const folderOf = (file: string) => (file.includes("/") ? file.split("/")[0]! : "(root)");

/** Every pair of folders under `dir` that import each other (a file of each imports a file of the other), type imports included, as "a ↔ b" with a < b. */
async function twoWayFolderPairs(dir: string): Promise<string[]> {
  const graph = (
    await madge(resolve(dir), { fileExtensions: ["ts"], tsConfig: resolve("tsconfig.json"), detectiveOptions: { ts: { skipTypeImports: false } } })
  ).obj();
  const edges = new Set<string>();
  for (const [from, imports] of Object.entries(graph)) {
    for (const to of imports) if (folderOf(from) !== folderOf(to)) edges.add(`${folderOf(from)} → ${folderOf(to)}`);
  }
  const pairs = [...edges].flatMap((edge) => {
    const [a, b] = edge.split(" → ") as [string, string];
    return a < b && edges.has(`${b} → ${a}`) ? [`${a} ↔ ${b}`] : [];
  });
  return pairs.sort();
}

/** The round's own parts: its agent, the sandbox that runs it and their settings work as one (ARCHITECTURE.md). */
const ALLOWED = ["agent ↔ config", "agent ↔ sandbox", "config ↔ sandbox"];

/**
 * Pairs still to undo (issue 31, "the round in one place"): the shared types of the root files that
 * import the app back, the round's steps in jobs/ reaching into gates/, and the gates → reconciliation
 * import. Remove a line here when its pair is gone; the test fails until the table says so.
 */
const STILL_TO_UNDO = [
  "(root) ↔ agent",
  "(root) ↔ app",
  "(root) ↔ config",
  "(root) ↔ github",
  "(root) ↔ jobs",
  "(root) ↔ redis",
  "(root) ↔ sandbox",
  "(root) ↔ store",
  "(root) ↔ workspace",
  "gates ↔ jobs",
  "gates ↔ reconcile",
  "jobs ↔ mirror",
  "jobs ↔ reconcile",
  "jobs ↔ status",
];

describe("the folders' imports", { timeout: 120_000 }, () => {
  it("two folders import each other only where the table allows it: a new pair fails, an undone one must leave the table", async () => {
    expect(await twoWayFolderPairs("src")).toEqual([...ALLOWED, ...STILL_TO_UNDO].sort());
  });

  it("finds a pair of folders that import each other through different files (the check can fail)", async () => {
    expect(await twoWayFolderPairs("test/unit/layout/folderPairsFixture")).toEqual(["x ↔ y"]);
  });
});
