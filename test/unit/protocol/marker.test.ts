import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../src/errors.js";
import { findMarker, hasMarker, renderMarker } from "../../../src/protocol/marker.js";

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

  it("refuses a payload whose encoding exceeds the size limit, naming the kind", () => {
    expect(() => renderMarker("ask", { big: "x".repeat(13_000) })).toThrow(ProtocolError);
    expect(() => renderMarker("ask", { big: "x".repeat(13_000) })).toThrow(/The ask marker would be \d+ characters/);
    expect(() => renderMarker("ask", { small: "x".repeat(1000) })).not.toThrow();
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
    const body = [renderMarker("status", { s: 1 }), renderMarker("ask", { a: 1 }), renderMarker("status", { s: 2 }), renderMarker("ask", { a: 2 }), renderMarker("status", { s: 3 })].join("\n");
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
