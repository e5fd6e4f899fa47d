import { resolve } from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";

/** The module graph under `dir`, type-only imports included. */
function graphOf(dir: string) {
  return madge(resolve(dir), { fileExtensions: ["ts"], tsConfig: resolve("tsconfig.json"), detectiveOptions: { ts: { skipTypeImports: false } } });
}

/** Every import cycle under `dir` (issue 16: the flow has none). */
async function cyclesIn(dir: string): Promise<string[][]> {
  return (await graphOf(dir)).circular();
}

describe("the module graph", { timeout: 120_000 }, () => {
  it("has no import cycle in the app, type imports included", async () => {
    expect(await cyclesIn("src")).toEqual([]);
  });

  it("keeps the domain types a leaf: src/domain.ts imports nothing of the app", async () => {
    const graph = (await graphOf("src")).obj();
    expect(graph["domain.ts"]).toEqual([]);
    expect(graph["protocol/ask.ts"]).toContain("domain.ts"); // the check sees the app's imports
  });

  it("finds a cycle when there is one (the check can fail)", async () => {
    const cycles = await cyclesIn("test/unit/layout/fixtures");
    expect(cycles).toEqual([["a.ts", "b.ts"]]);
  });
});
