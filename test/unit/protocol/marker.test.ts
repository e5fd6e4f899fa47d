import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../src/errors.js";
import { MAX_MARKER_CHARS, findMarker, hasMarker, renderMarker } from "../../../src/protocol/marker.js";

const encode = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

describe("renderMarker", () => {
  it("renders an HTML comment with the kind, the version and base64url JSON", () => {
    const marker = renderMarker("ask", { a: 1 });
    expect(marker).toBe(`<!-- escalation:ask:v1 ${encode({ a: 1 })} -->`);
    expect(marker).toMatch(/^<!-- escalation:ask:v1 [A-Za-z0-9_-]+ -->$/);
  });

  it("never contains '--' or '>' inside the payload, even for hostile text", () => {
    const hostile = { text: "--> <script>alert(1)</script> <!-- -- >>> ' \" \n ünïcödé 🙋" };
    const marker = renderMarker("status", hostile);
    const inner = marker.slice("<!-- ".length, -" -->".length);
    expect(inner).not.toContain("--");
    expect(inner).not.toContain(">");
    expect(findMarker(`text ${marker} text`, "status")).toEqual(hostile);
  });

  it("asks stay small; the status state may use most of a comment", () => {
    expect(MAX_MARKER_CHARS.ask).toBe(16_384);
    expect(MAX_MARKER_CHARS.status).toBeLessThan(65_536);
    expect(MAX_MARKER_CHARS.status).toBeGreaterThan(MAX_MARKER_CHARS.ask);
  });

  it.each<["ask" | "status"]>([["ask"], ["status"]])("refuses a %s payload whose encoding exceeds its limit, naming the kind", (kind) => {
    const limit = MAX_MARKER_CHARS[kind];
    // base64url makes 4 characters of 3 bytes; {"big":"…"} adds 10 bytes.
    const fits = { big: "x".repeat(Math.floor((limit * 3) / 4) - 10) };
    const tooBig = { big: "x".repeat(Math.floor((limit * 3) / 4)) };
    expect(renderMarker(kind, fits).length).toBeLessThanOrEqual(limit + 30);
    expect(findMarker(renderMarker(kind, fits), kind)).toEqual(fits);
    expect(() => renderMarker(kind, tooBig)).toThrow(ProtocolError);
    expect(() => renderMarker(kind, tooBig)).toThrow(new RegExp(`^The ${kind} marker would be \\d+ characters; keep it under ${limit}`));
  });
});

describe("findMarker", () => {
  it("returns undefined when the body has no marker", () => {
    expect(findMarker("just a comment", "ask")).toBeUndefined();
    expect(findMarker("", "status")).toBeUndefined();
  });

  it("decodes a marker anywhere in the body", () => {
    const body = `Hello\n\n${renderMarker("ask", { n: 1 })}\n\nbye`;
    expect(findMarker(body, "ask")).toEqual({ n: 1 });
  });

  it("picks the last marker of the kind when there are several", () => {
    const body = [renderMarker("ask", { n: 1 }), "middle", renderMarker("ask", { n: 2 }), "end", renderMarker("ask", { n: 3 })].join("\n");
    expect(findMarker(body, "ask")).toEqual({ n: 3 });
  });

  it("keeps kinds apart: an ask marker is not a status marker and vice versa", () => {
    const body = `${renderMarker("ask", { kind: "ask" })}\n${renderMarker("status", { kind: "status" })}`;
    expect(findMarker(body, "ask")).toEqual({ kind: "ask" });
    expect(findMarker(body, "status")).toEqual({ kind: "status" });
    expect(findMarker(renderMarker("ask", { a: 1 }), "status")).toBeUndefined();
    expect(findMarker(renderMarker("status", { a: 1 }), "ask")).toBeUndefined();
  });

  it("the last marker wins per kind even when markers of the other kind follow", () => {
    const body = [
      renderMarker("status", { s: 1 }),
      renderMarker("ask", { a: 1 }),
      renderMarker("status", { s: 2 }),
      renderMarker("ask", { a: 2 }),
      renderMarker("status", { s: 3 }),
    ].join("\n");
    expect(findMarker(body, "ask")).toEqual({ a: 2 });
    expect(findMarker(body, "status")).toEqual({ s: 3 });
  });

  it.each<[string, string]>([
    ["no space after <!--", `<!--escalation:ask:v1 ${encode({ x: 1 })}-->`],
    ["extra whitespace and newlines", `<!--   escalation:ask:v1\n  ${encode({ x: 1 })}\n  -->`],
  ])("accepts the marker with %s", (_name, body) => {
    expect(findMarker(body, "ask")).toEqual({ x: 1 });
  });

  it.each<[string, string]>([
    ["an unknown version", `<!-- escalation:ask:v2 ${encode({ x: 1 })} -->`],
    ["an unknown kind", `<!-- escalation:other:v1 ${encode({ x: 1 })} -->`],
    ["characters outside base64url", `<!-- escalation:ask:v1 ${Buffer.from('{"x":1}').toString("base64")}+/= -->`],
    ["no closing -->", `<!-- escalation:ask:v1 ${encode({ x: 1 })}`],
    ["no payload", "<!-- escalation:ask:v1 -->"],
  ])("ignores a marker with %s", (_name, body) => {
    expect(findMarker(body, "ask")).toBeUndefined();
  });

  it.each<[string, string]>([
    ["base64url of text that is not JSON", Buffer.from("not json", "utf8").toString("base64url")],
    ["truncated JSON", encode({ questions: ["a", "b"] }).slice(0, -6)],
    ["a hand-edited payload", "aGVsbG8"],
  ])("throws ProtocolError for %s", (_name, payload) => {
    const body = `<!-- escalation:ask:v1 ${payload} -->`;
    expect(() => findMarker(body, "ask")).toThrow(ProtocolError);
    expect(() => findMarker(body, "ask")).toThrow(/ask marker is not valid base64url JSON/);
  });
});

describe("findMarker: size", () => {
  it("refuses an ask marker longer than the ask limit (hand-made: renderMarker never writes one)", () => {
    const long = encode({ big: "x".repeat(15_000) });
    expect(long.length).toBeGreaterThan(MAX_MARKER_CHARS.ask);
    expect(() => findMarker(`<!-- escalation:ask:v1 ${long} -->`, "ask")).toThrow(/ask marker is longer than 16384 characters/);
    // The same payload is fine as a status marker.
    expect(findMarker(`<!-- escalation:status:v1 ${long} -->`, "status")).toEqual({ big: "x".repeat(15_000) });
  });

  it("does not recognise a marker longer than any limit", () => {
    const huge = encode({ big: "x".repeat(40_000) });
    expect(huge.length).toBeGreaterThan(MAX_MARKER_CHARS.status);
    expect(findMarker(`<!-- escalation:status:v1 ${huge} -->`, "status")).toBeUndefined();
  });
});

describe("hasMarker", () => {
  it.each<[string, boolean]>([
    ["plain text", false],
    ["<!-- a normal HTML comment -->", false],
    ["escalation:ask:v1 without a comment", false],
    [renderMarker("ask", { a: 1 }), true],
    [renderMarker("status", { a: 1 }), true],
    ["<!-- escalation:ask:v1 !!!broken!!! -->", true],
    ["<!--escalation:something else", true],
  ])("%j → %s", (body, expected) => {
    expect(hasMarker(body)).toBe(expected);
  });
});
