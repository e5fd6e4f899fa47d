import { describe, expect, it } from "vitest";
import { groupByRepo } from "../../../../src/http/statusPage/groupByRepo.js";
import { viewGate } from "../../../../src/observe/gateView.js";
import { gateFixture } from "../../../support/gates.js";

const T0 = Date.parse("2025-01-01T12:00:00Z");

describe("groupByRepo", () => {
  it("groups gates by repository in order of their oldest gate, oldest first within a group", () => {
    const now = T0 + 600_000;
    const views = [
      viewGate(gateFixture({ id: "1", repo: "acme/b", askedAt: T0 }), now),
      viewGate(gateFixture({ id: "2", repo: "acme/a", askedAt: T0 + 1000 }), now),
      viewGate(gateFixture({ id: "3", repo: "ACME/b", askedAt: T0 + 2000 }), now),
    ];
    expect(groupByRepo(views).map((g) => [g.repo, g.gates.map((x) => x.id)])).toEqual([
      ["acme/b", ["1", "3"]],
      ["acme/a", ["2"]],
    ]);
  });
});
