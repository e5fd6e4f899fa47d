import { describe, expect, it } from "vitest";
import { renderStatusComment, type StatusState } from "../../../src/protocol/statusComment.js";
import { readStatusRecord } from "../../../src/reconcile/statusRecord.js";

const APP = "escalation[bot]";
const isApp = (login: string) => login === APP;
const gate = (id: string, state: string): StatusState["gates"][number] => ({ id, state, round: 0, answers: [] });
const status = (id: number, nextRound: number, gates: StatusState["gates"], login = APP) => ({
  id,
  user: { login },
  body: renderStatusComment([`line of ${id}`], { v: 1, nextRound, gates }),
});

describe("readStatusRecord: GitHub's record of the gates", () => {
  it("reads the one status comment", () => {
    const record = readStatusRecord([{ id: 1, user: { login: "alice" }, body: "hi" }, status(2, 1, [gate("10", "open")])], isApp);
    expect(record).toEqual({ commentId: 2, state: { v: 1, nextRound: 1, gates: [gate("10", "open")] } });
  });

  it("merges a second status comment posted after Redis lost the issue: older gates are kept, the furthest state wins", () => {
    const older = status(2, 3, [gate("10", "resumed"), gate("20", "resuming")]);
    const newer = status(5, 1, [gate("20", "answered"), gate("30", "open")]); // rendered from an emptied Redis
    const record = readStatusRecord([older, newer], isApp)!;
    expect(record.commentId).toBe(5);
    expect(record.state.nextRound).toBe(3);
    expect(Object.fromEntries(record.state.gates.map((g) => [g.id, g.state]))).toEqual({ 10: "resumed", 20: "resuming", 30: "open" });
  });

  it("ignores status markers from anyone but the app, and damaged markers", () => {
    const forged = status(3, 9, [gate("10", "resumed")], "mallory");
    const damaged = { id: 4, user: { login: APP }, body: "<!-- escalation:status:v1 bm90LWpzb24 -->" };
    expect(readStatusRecord([status(2, 1, [gate("10", "open")]), forged, damaged], isApp)?.state.gates).toEqual([gate("10", "open")]);
    expect(readStatusRecord([forged], isApp)).toBeUndefined();
  });
});
