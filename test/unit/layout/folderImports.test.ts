import { resolve } from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";

/** The entry point `npm start` runs: it imports the app and nothing imports it, so it belongs to no folder's pair. */
const ENTRY = "main.ts";

/** A folder of `src/`, "(root)" for its other top-level files (domain.ts, errors.ts, payloads.ts …), or the entry. */
const folderOf = (file: string) => (file === ENTRY ? "(entry)" : file.includes("/") ? file.split("/")[0]! : "(root)");

async function importGraph(dir: string): Promise<Record<string, string[]>> {
  return (
    await madge(resolve(dir), { fileExtensions: ["ts"], tsConfig: resolve("tsconfig.json"), detectiveOptions: { ts: { skipTypeImports: false } } })
  ).obj();
}

/** Every pair of folders under `dir` that import each other (a file of each imports a file of the other), type imports included, as "a ↔ b" with a < b. */
async function twoWayFolderPairs(dir: string): Promise<string[]> {
  const graph = await importGraph(dir);
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

describe("the folders' imports", { timeout: 120_000 }, () => {
  it("two folders import each other only where the table allows it: the round's agent, sandbox and settings", async () => {
    expect(await twoWayFolderPairs("src")).toEqual(ALLOWED);
  });

  it("nothing imports the entry point, so leaving it out of the pairs hides none", async () => {
    const graph = await importGraph("src");
    expect(graph[ENTRY]).toBeDefined();
    expect(Object.entries(graph).filter(([, imports]) => imports.includes(ENTRY))).toEqual([]);
  });

  it("finds a pair of folders that import each other through different files (the check can fail)", async () => {
    expect(await twoWayFolderPairs("test/unit/layout/folderPairsFixture")).toEqual(["x ↔ y"]);
  });
});
