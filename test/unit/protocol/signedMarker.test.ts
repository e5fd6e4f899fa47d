import { describe, expect, it } from "vitest";
import { noticedComments, renderIgnoredNotice } from "../../../src/protocol/ignoredNotice.js";
import { findMarker, readSignedMarker, renderMarker, renderSignedMarker, sealOf } from "../../../src/protocol/marker.js";
import { StateKey } from "../../../src/protocol/stateKey.js";
import { readStatusComment, renderStatusComment } from "../../../src/status/statusComment.js";

const key = StateKey.derive("a-server-secret-the-agent-never-sees");
const seal = sealOf(key, { repo: "acme/widgets", issue: 7 });
const state = { v: 1 as const, nextRound: 2, gates: [{ id: "1001", state: "open", round: 1, answers: [] }] };

/** The payload of the (single) marker in `body` replaced, its signature kept. */
const withPayload = (body: string, payload: unknown) =>
  body.replace(/(escalation:\w+:v1 )([A-Za-z0-9_-]+)/, (_, head: string) => `${head}${Buffer.from(JSON.stringify(payload)).toString("base64url")}`);

describe("signed markers: the app's own state in comments", () => {
  it("a marker signed for the issue reads back as valid, with its payload", () => {
    const body = `text\n${renderSignedMarker("status", state, seal)}`;
    expect(readSignedMarker(body, "status", seal)).toEqual({ outcome: "valid", payload: state });
    expect(readStatusComment(renderStatusComment(["a line"], state, seal), seal)).toEqual({ outcome: "valid", state });
  });

  it("a tampered payload under a kept signature is mismatching", () => {
    const forged = withPayload(renderSignedMarker("status", state, seal), { ...state, gates: [{ ...state.gates[0], state: "resumed" }] });
    expect(readSignedMarker(forged, "status", seal)).toEqual({ outcome: "mismatching" });
    const tamperedSig = renderSignedMarker("status", state, seal).replace(/sig=(.)/, (_, c: string) => `sig=${c === "A" ? "B" : "A"}`);
    expect(readSignedMarker(tamperedSig, "status", seal)).toEqual({ outcome: "mismatching" });
  });

  it("a marker signed for another issue, another repository, or as another kind does not verify (no replay elsewhere)", () => {
    const signed = renderSignedMarker("status", state, seal);
    expect(readSignedMarker(signed, "status", sealOf(key, { repo: "acme/widgets", issue: 8 }))).toEqual({ outcome: "mismatching" });
    expect(readSignedMarker(signed, "status", sealOf(key, { repo: "acme/gadgets", issue: 7 }))).toEqual({ outcome: "mismatching" });
    const ladder = renderSignedMarker("ladder", { v: 1, gate: "1", step: 0 }, seal);
    const asStatus = ladder.replace("escalation:ladder:", "escalation:status:");
    expect(readSignedMarker(asStatus, "status", seal)).toEqual({ outcome: "mismatching" });
    // GitHub's repository names are case-insensitive: the same issue under another spelling verifies.
    expect(readSignedMarker(signed, "status", sealOf(key, { repo: "Acme/Widgets", issue: 7 })).outcome).toBe("valid");
  });

  it("a marker without a signature (another writer, or an app version before signing) is unsigned", () => {
    expect(readSignedMarker(renderMarker("status", state), "status", seal)).toEqual({ outcome: "unsigned" });
    const stripped = renderSignedMarker("status", state, seal).replace(/ sig=[A-Za-z0-9_-]+/, "");
    expect(readSignedMarker(stripped, "status", seal)).toEqual({ outcome: "unsigned" });
    expect(readSignedMarker("no marker here", "status", seal)).toEqual({ outcome: "absent" });
  });

  it("a marker signed with another key (another secret) is mismatching", () => {
    const other = sealOf(StateKey.derive("another-secret-of-another-server"), seal.scope);
    expect(readSignedMarker(renderSignedMarker("status", state, other), "status", seal)).toEqual({ outcome: "mismatching" });
  });

  it("the last marker of the kind decides: a forged one appended after the app's makes the comment mismatching", () => {
    const body = `${renderSignedMarker("status", state, seal)}\n${withPayload(renderSignedMarker("status", state, seal), { ...state, nextRound: 99 })}`;
    expect(readSignedMarker(body, "status", seal)).toEqual({ outcome: "mismatching" });
  });

  it("a signed marker is still found by the unsigned reader (how webhooks drop the app's own comments)", () => {
    expect(findMarker(renderSignedMarker("ladder", { v: 1, gate: "1", step: 0 }, seal), "ladder")).toEqual({ v: 1, gate: "1", step: 0 });
  });

  it("the key never shows when the configuration is serialised", () => {
    expect(JSON.stringify({ stateKey: key })).toBe('{"stateKey":"[state key]"}');
  });
});

describe("the ignored-state notice", () => {
  it("names the comment it reports, only when the app signed it for this issue", () => {
    const body = renderIgnoredNotice([{ id: 555, url: "https://github.com/acme/widgets/issues/7#issuecomment-555", why: "unsigned" }], seal);
    expect(body).toMatch(/^⚠️ A comment under the app's name carries state the app did not write\. It was ignored/);
    expect(body).toContain("- [comment](https://github.com/acme/widgets/issues/7#issuecomment-555) carries no signature");
    expect(noticedComments(body, seal)).toEqual([555]);
    expect(noticedComments(body, sealOf(key, { repo: "acme/widgets", issue: 8 }))).toEqual([]);
    expect(noticedComments(renderMarker("notice", { v: 1, ignored: [555] }), seal)).toEqual([]);
  });

  it("names many comments in one note, counts the links beyond ten, and still reads an earlier version's note of one", () => {
    const comments = Array.from({ length: 12 }, (_, i) => ({
      id: 1000 + i,
      url: `https://github.com/acme/widgets/issues/7#issuecomment-${1000 + i}`,
      why: "unsigned" as const,
    }));
    const body = renderIgnoredNotice(comments, seal);
    expect(body).toMatch(/^⚠️ 12 comments under the app's name carry state/);
    expect(body).toContain("- and 2 more");
    expect(noticedComments(body, seal)).toEqual(comments.map((c) => c.id));
    expect(noticedComments(renderSignedMarker("notice", { v: 1, ignored: 555 }, seal), seal)).toEqual([555]);
  });
});
