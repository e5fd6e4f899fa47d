import { describe, expect, it } from "vitest";
import { storeRedis } from "../../support/storeRedis.js";
import { newGate } from "./support.js";

const { freshStore } = storeRedis();

describe("Stores: namespaces", () => {
  it("two prefixes on one connection do not see each other's gates", async () => {
    const a = freshStore();
    const b = freshStore();
    const g = newGate();
    await a.gates.openGate(g);
    expect(await b.gates.getGate(g.id)).toBeUndefined();
    expect(await b.gates.openGates()).toEqual([]);
    expect((await b.gates.openGate(g)).opened).toBe(true);
  });
});
