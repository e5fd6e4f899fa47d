import { describe, expect, it } from "vitest";
import { storeRedis } from "../../support/storeRedis.js";
import { ref, REPO } from "./support.js";

const { freshStore } = storeRedis();

describe("StatusLog: status log", () => {
  it("appends numbered lines and remembers how many are rendered", async () => {
    const store = freshStore();
    expect(await store.statusLog.statusLines(ref)).toEqual([]);
    expect(await store.statusLog.statusRendered(ref)).toBe(0);
    expect(await store.statusLog.appendStatusLine(ref, "round 0: agent started")).toBe(1);
    expect(await store.statusLog.appendStatusLine(ref, "round 0: agent finished")).toBe(2);
    expect(await store.statusLog.statusLines({ repo: "octo/demo", issue: 7 })).toEqual(["round 0: agent started", "round 0: agent finished"]);
    await store.statusLog.setStatusRendered(ref, 2);
    expect(await store.statusLog.statusRendered(ref)).toBe(2);
    expect(await store.statusLog.statusLines({ repo: REPO, issue: 8 })).toEqual([]);
  });
});
