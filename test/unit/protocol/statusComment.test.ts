import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../src/errors.js";
import { renderMarker } from "../../../src/protocol/marker.js";
import { StatusStateSchema, parseStatusComment, renderStatusComment, type StatusState } from "../../../src/protocol/statusComment.js";

const state: StatusState = {
  v: 1,
  nextRound: 3,
  gates: [
    { id: "gateAAAAAAAA", state: "resumed", answeredBy: "alice", answerCommentId: 101 },
    { id: "gateBBBBBBBB", state: "superseded" },
    { id: "gateCCCCCCCC", state: "open" },
  ],
};

describe("renderStatusComment", () => {
  it("renders a heading, one bullet per line and the state marker last", () => {
    const body = renderStatusComment(["round 0: agent started", "round 0: agent finished (exit 0, 3s)"], state);
    const lines = body.split("\n");
    expect(lines[0]).toBe("### 🤖 Escalation status");
    expect(lines).toContain("- round 0: agent started");
    expect(lines).toContain("- round 0: agent finished (exit 0, 3s)");
    expect(lines.at(-1)).toMatch(/^<!-- escalation:status:v1 [A-Za-z0-9_-]+ -->$/);
    expect(body).not.toContain("omitted");
  });

  it("keeps the state recoverable from the comment alone", () => {
    expect(parseStatusComment(renderStatusComment(["x"], state))).toEqual(state);
    expect(parseStatusComment(renderStatusComment([], { v: 1, nextRound: 0, gates: [] }))).toEqual({ v: 1, nextRound: 0, gates: [] });
  });

  it.each<[number, number, number]>([
    // [lines, shown, omitted]
    [60, 60, 0],
    [61, 60, 1],
    [150, 60, 90],
  ])("with %i lines shows the last %i and says %i were omitted", (count, shown, omitted) => {
    const lines = Array.from({ length: count }, (_, i) => `entry ${i + 1}`);
    const body = renderStatusComment(lines, state);
    const bullets = body.split("\n").filter((l) => l.startsWith("- "));
    expect(bullets).toHaveLength(shown);
    expect(bullets.at(-1)).toBe(`- entry ${count}`);
    expect(bullets[0]).toBe(`- entry ${count - shown + 1}`);
    if (omitted > 0) expect(body).toContain(`_${omitted} earlier entries omitted._`);
    else expect(body).not.toContain("omitted");
  });
});

describe("parseStatusComment", () => {
  it("returns undefined for a comment without a status marker (an ask marker does not count)", () => {
    expect(parseStatusComment("### 🤖 Escalation status\n\n- nothing")).toBeUndefined();
    expect(parseStatusComment(renderMarker("ask", state))).toBeUndefined();
  });

  it.each<[string, unknown]>([
    ["another version", { ...state, v: 2 }],
    ["a negative round", { ...state, nextRound: -1 }],
    ["gates not an array", { ...state, gates: {} }],
    ["a gate without id", { v: 1, nextRound: 0, gates: [{ state: "open" }] }],
    ["an over-long gate id", { v: 1, nextRound: 0, gates: [{ id: "x".repeat(41), state: "open" }] }],
  ])("returns undefined for a status marker with %s", (_name, payload) => {
    expect(parseStatusComment(`text\n${renderMarker("status", payload)}`)).toBeUndefined();
  });

  it("reads the last status marker when the comment was edited to carry two", () => {
    const older = { v: 1 as const, nextRound: 1, gates: [] };
    const body = `${renderMarker("status", older)}\n${renderMarker("status", state)}`;
    expect(parseStatusComment(body)).toEqual(state);
  });

  it("throws ProtocolError when the status marker is not JSON", () => {
    expect(() => parseStatusComment("<!-- escalation:status:v1 bm90IGpzb24 -->")).toThrow(ProtocolError);
  });
});

describe("renderStatusComment: large histories", () => {
  const gates = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `g${String(i).padStart(11, "0")}`, state: "resumed", answeredBy: "octocat", answerCommentId: 2_400_000_000 + i }));

  it("renders and round-trips a state of 100 gates", () => {
    const big: StatusState = { v: 1, nextRound: 100, gates: gates(100) };
    expect(parseStatusComment(renderStatusComment(["x"], big))).toEqual(big);
  });

  // BUG (src/protocol/statusComment.ts + src/protocol/marker.ts): StatusStateSchema allows up to 500
  // gates, and src/workers/processFeedback.ts puts every gate the issue ever had (superseded ones too)
  // into the state, but the encoded marker is capped at 16,384 characters, which realistic entries
  // ({id: 12 chars, state, answeredBy, answerCommentId}) exceed at about 140 gates. From then on
  // renderStatusComment throws ProtocolError ("…shorten the questions or options") on every status
  // update, so the status comment can never be updated again.
  // Expected: any state the schema accepts can be rendered (or the state is bounded/compacted).
  it.fails("renders a state with the schema's maximum of 500 gates", () => {
    const max: StatusState = { v: 1, nextRound: 500, gates: gates(500) };
    expect(StatusStateSchemaAccepts(max)).toBe(true);
    expect(parseStatusComment(renderStatusComment(["x"], max))).toEqual(max);
  });
});

function StatusStateSchemaAccepts(state: StatusState): boolean {
  return StatusStateSchema.safeParse(state).success;
}
