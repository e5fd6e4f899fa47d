import { resolve } from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";

/** Every import cycle under `dir`, type-only imports included (issue 16: the flow has none). */
async function cyclesIn(dir: string): Promise<string[][]> {
  const graph = await madge(resolve(dir), { fileExtensions: ["ts"], tsConfig: resolve("tsconfig.json"), detectiveOptions: { ts: { skipTypeImports: false } } });
  return graph.circular();
}

describe("the module graph", { timeout: 120_000 }, () => {
  it("has no import cycle in the app, type imports included", async () => {
    expect(await cyclesIn("src")).toEqual([]);
  });

  it("finds a cycle when there is one (the check can fail)", async () => {
    const cycles = await cyclesIn("test/unit/layout/fixtures");
    expect(cycles).toEqual([["a.ts", "b.ts"]]);
  });
});
