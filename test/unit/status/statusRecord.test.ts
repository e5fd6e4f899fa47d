import { describe, expect, it } from "vitest";
import { renderStatusComment, type StatusState } from "../../../src/status/statusComment.js";
import { renderMarker } from "../../../src/protocol/marker.js";
import { readStatusRecord, statusRecords } from "../../../src/status/statusRecord.js";
import { testSeal } from "../../support/seal.js";

const seal = testSeal();

const APP = "escalation[bot]";
const isApp = (login: string) => login === APP;
const gate = (id: string, state: string): StatusState["gates"][number] => ({ id, state, round: 0, answers: [] });
const status = (id: number, nextRound: number, gates: StatusState["gates"], login = APP) => ({
  id,
  user: { login },
  body: renderStatusComment([`line of ${id}`], { v: 1, nextRound, gates }, seal),
});

describe("readStatusRecord: GitHub's record of the gates", () => {
  it("reads the one status comment", () => {
    const record = readStatusRecord([{ id: 1, user: { login: "alice" }, body: "hi" }, status(2, 1, [gate("10", "open")])], isApp, seal);
    expect(record).toEqual({ commentId: 2, state: { v: 1, nextRound: 1, gates: [gate("10", "open")] } });
  });

  it("merges a second status comment posted after Redis lost the issue: older gates are kept, the furthest state wins", () => {
    const older = status(2, 3, [gate("10", "resumed"), gate("20", "resuming")]);
    const newer = status(5, 1, [gate("20", "answered"), gate("30", "open")]); // rendered from an emptied Redis
    const record = readStatusRecord([older, newer], isApp, seal)!;
    expect(record.commentId).toBe(5);
    expect(record.state.nextRound).toBe(3);
    expect(Object.fromEntries(record.state.gates.map((g) => [g.id, g.state]))).toEqual({ 10: "resumed", 20: "resuming", 30: "open" });
  });

  it("ignores status markers from anyone but the app, and damaged markers", () => {
    const forged = status(3, 9, [gate("10", "resumed")], "mallory");
    const damaged = { id: 4, user: { login: APP }, body: "<!-- escalation:status:v1 bm90LWpzb24 -->" };
    expect(readStatusRecord([status(2, 1, [gate("10", "open")]), forged, damaged], isApp, seal)?.state.gates).toEqual([gate("10", "open")]);
    expect(readStatusRecord([forged], isApp, seal)).toBeUndefined();
  });

  it("ignores the app's own login on a status comment that is unsigned, edited, or signed for another issue", () => {
    const unsigned = {
      id: 3,
      user: { login: APP },
      body: `### 🤖 Escalation status\n\n${renderMarker("status", { v: 1, nextRound: 9, gates: [gate("10", "resumed")] })}`,
    };
    const real = status(2, 1, [gate("10", "open")]);
    const edited = { ...status(4, 1, [gate("10", "open")]), id: 4 };
    edited.body = edited.body.replace(
      /(escalation:status:v1 )([A-Za-z0-9_-]+)/,
      (_, head: string) => `${head}${Buffer.from(JSON.stringify({ v: 1, nextRound: 9, gates: [gate("10", "resumed")] })).toString("base64url")}`,
    );
    const copied = { id: 5, user: { login: APP }, body: renderStatusComment([], { v: 1, nextRound: 9, gates: [gate("10", "resumed")] }, testSeal(2)) };
    const record = readStatusRecord([real, unsigned, edited, copied], isApp, seal);
    expect(record).toEqual({ commentId: 2, state: { v: 1, nextRound: 1, gates: [gate("10", "open")] } });
  });

  it("takes a record only in the comment it names; a copy elsewhere, and an earlier version's record beside a bound one, are replayed", () => {
    const bound = (id: number, names: number, gates: StatusState["gates"]) => ({
      id,
      user: { login: APP },
      body: renderStatusComment([], { v: 1, comment: names, seq: id, nextRound: 1, gates }, seal),
    });
    const real = bound(2, 2, [gate("10", "open")]);
    const copy = { ...bound(2, 2, [gate("10", "resumed")]), id: 7 };
    const legacy = status(1, 1, [gate("10", "resumed")]);
    const readings = statusRecords([legacy, real, copy], isApp, seal);
    expect(readings.found.map((f) => f.comment.id)).toEqual([2]);
    expect(readings.replayed.map((c) => c.id)).toEqual([1, 7]);
    expect(readStatusRecord([legacy, real, copy], isApp, seal)?.state.gates).toEqual([gate("10", "open")]);
    // Before any bound record, an earlier version's record is read as before.
    expect(statusRecords([legacy], isApp, seal).found.map((f) => f.comment.id)).toEqual([1]);
  });
});
