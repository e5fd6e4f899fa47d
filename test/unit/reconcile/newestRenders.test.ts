import { describe, expect, it, vi } from "vitest";
import { renderStatusComment, type StatusState } from "../../../src/status/statusComment.js";
import { newestRenders, STATUS_EDITS_READ } from "../../../src/reconcile/newestRenders.js";
import type { FoundRecord } from "../../../src/status/statusRecord.js";
import { testSeal } from "../../support/seal.js";

const seal = testSeal();
const APP = { login: "escalation[bot]" };
const state = (seq: number, gateState: string, comment = 5): StatusState => ({
  v: 1,
  comment,
  seq,
  nextRound: 1,
  gates: [{ id: "10", state: gateState, round: 0, answers: [] }],
});
const body = (s: StatusState) => renderStatusComment(["a line"], s, seal);
const history = (versions: string[]) => ({
  nodes: [
    {
      id: "IC_5",
      author: { login: "escalation" },
      editor: { login: "escalation" },
      lastEditedAt: "2026-01-01T00:09:00Z",
      userContentEdits: {
        totalCount: versions.length,
        nodes: versions.map((diff, i) => ({ editedAt: `2026-01-01T00:0${i}:00Z`, deletedAt: null, diff, editor: { login: "escalation" } })),
      },
    },
  ],
});

describe("newestRenders: an older render put back in place of the newest", () => {
  it("takes the highest render of the comment's history, and names the comment", async () => {
    const current = state(1, "answered");
    const found: FoundRecord[] = [{ comment: { id: 5, user: APP, node_id: "IC_5", body: body(current) }, state: current }];
    const graphql = vi.fn(async () => history([body(state(1, "answered")), body(state(2, "open")), body(current)]));
    const out = await newestRenders(graphql, found, seal);
    expect(out.found[0]!.state).toEqual(state(2, "open"));
    expect(out.rolledBack.map((c) => c.id)).toEqual([5]);
    expect((graphql.mock.calls[0] as unknown[])[0]).toContain(`userContentEdits(first: ${STATUS_EDITS_READ})`);
  });

  it("ignores versions bound to another comment, and reads nothing for records of earlier versions", async () => {
    const current = state(3, "open");
    const graphql = vi.fn(async () => history([body(state(9, "resumed", 6)), body(current)]));
    const found: FoundRecord[] = [{ comment: { id: 5, user: APP, node_id: "IC_5", body: body(current) }, state: current }];
    expect((await newestRenders(graphql, found, seal)).rolledBack).toEqual([]);
    const legacy: FoundRecord[] = [{ comment: { id: 5, user: APP, node_id: "IC_5" }, state: { v: 1, nextRound: 1, gates: [] } }];
    const none = vi.fn();
    expect(await newestRenders(none, legacy, seal)).toEqual({ found: legacy, rolledBack: [] });
    expect(none).not.toHaveBeenCalled();
  });
});
