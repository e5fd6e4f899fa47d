import { describe, expect, it } from "vitest";
import { HOLDER_INFO_FD, HOLDER_READY_FD, holderScript, PROXY_PORT, READY_FD, ROUND_SHELL } from "../../../src/sandbox/bridgeScript.js";
import { SandboxError } from "../../../src/errors.js";

describe("ROUND_SHELL", () => {
  it("only says the sandbox is up, and closes the descriptor so the agent does not inherit it", () => {
    expect(ROUND_SHELL).toEqual({ prelude: `printf . >&${READY_FD}\nexec ${READY_FD}>&-` });
  });
});

describe("holderScript", () => {
  it("bridges the proxy and each pass-through, waiting for each to listen as /proc/net/tcp spells it", () => {
    const script = holderScript({ dir: "/d", proxySocket: "proxy.sock", passThrough: [{ host: "127.0.0.1", port: 4000, socket: "api.sock" }] });
    expect(script).toContain(`socat TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/run/escalation/proxy.sock`);
    expect(script).toContain("listening $bridge0 0100007F:0C38 127.0.0.1:3128");
    expect(script).toContain("UNIX-CONNECT:/run/escalation/api.sock");
    expect(script).toContain("listening $bridge1 0100007F:0FA0 127.0.0.1:4000");
    // Both start before either is waited for, so their start-ups overlap.
    expect(script.lastIndexOf("socat ")).toBeLessThan(script.indexOf("listening $bridge0"));
    expect(script.indexOf(`printf . >&${HOLDER_READY_FD}`)).toBeGreaterThan(script.lastIndexOf("listening $bridge"));
    // The bridges do not keep the holder's pipes open; it stays until its stdin ends, then stops them.
    expect(script).toContain(`${HOLDER_INFO_FD}>&- ${HOLDER_READY_FD}>&- &`);
    expect(script.trim().split("\n").slice(-2)).toEqual(["read -r _", "kill $bridges 2>/dev/null"]);
    expect(script).not.toMatch(/\bsleep\b/);
  });

  it("refuses socket names socat would misread and addresses that are not IPv4 loopback", () => {
    expect(() => holderScript({ dir: "/d", proxySocket: "a,b", passThrough: [] })).toThrow(SandboxError);
    expect(() => holderScript({ dir: "/d", proxySocket: "p", passThrough: [{ host: "10.0.0.1", port: 80, socket: "s" }] })).toThrow(/only IPv4 loopback/);
  });
});
