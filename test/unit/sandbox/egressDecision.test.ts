import { describe, expect, it } from "vitest";
import { classifyAddress, type AddressClass } from "../../../src/sandbox/egress/address.js";
import { normalizeHost, parseAllowEntry, parseAllowList } from "../../../src/sandbox/egress/allowList.js";
import { admitHost, decideEgress, type RefusalReason } from "../../../src/sandbox/egress/decideEgress.js";
import { egressPolicy, type EgressPolicy } from "../../../src/sandbox/egress/policy.js";

const rules = (text: string) => {
  const { rules: parsed, errors } = parseAllowList(text);
  expect(errors).toEqual([]);
  return parsed;
};

/** The simulator's shape: GitHub on loopback, plus a model provider and a wildcard. */
const simPolicy: EgressPolicy = egressPolicy({
  baseUrl: "http://127.0.0.1:3001/api/v3",
  serverUrl: "http://127.0.0.1:3001",
  networkAllow: rules("api.openai.com, *.anthropic.com, registry.example.org:8443, 140.82.112.9, [2606:4700::1111]:443"),
});

/** Real GitHub. */
const githubPolicy: EgressPolicy = egressPolicy({ baseUrl: "https://api.github.com", serverUrl: "https://github.com", networkAllow: rules("api.openai.com") });

/** GitHub Enterprise on a private address. */
const ghePolicy: EgressPolicy = egressPolicy({ baseUrl: "https://ghe.corp/api/v3", serverUrl: "https://ghe.corp", networkAllow: [] });

describe("classifyAddress", () => {
  it.each<[string, AddressClass | undefined]>([
    ["8.8.8.8", "public"],
    ["140.82.112.3", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["172.15.255.255", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.255", "private"],
    ["100.128.0.1", "public"],
    ["169.254.169.254", "link-local"],
    ["169.254.0.1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "reserved"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.5", "reserved"],
    ["198.18.0.1", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["FD00::1", "private"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["2001:4860:4860::8888", "public"],
    ["2606:4700::1111", "public"],
    ["2001:db8::1", "reserved"],
    ["2001:0::1", "reserved"],
    ["100::1", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::FFFF:169.254.169.254", "link-local"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:192.168.1.1", "private"],
    ["::ffff:8.8.8.8", "public"],
    ["0:0:0:0:0:ffff:0a00:0001", "private"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["64:ff9b::8.8.8.8", "public"],
    ["2002:a9fe:a9fe::1", "link-local"],
    ["2002:0808:0808::1", "public"],
    ["fe80::1%eth0", undefined],
    ["example.com", undefined],
    ["127.1", undefined],
    ["", undefined],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe("AGENT_NETWORK_ALLOW entries", () => {
  it.each([
    ["api.openai.com", { kind: "host", host: "api.openai.com", port: 443 }],
    ["API.OpenAI.com.", { kind: "host", host: "api.openai.com", port: 443 }],
    ["*.anthropic.com", { kind: "subdomains", domain: "anthropic.com", port: 443 }],
    ["registry.example.org:8443", { kind: "host", host: "registry.example.org", port: 8443 }],
    ["*.example.org:80", { kind: "subdomains", domain: "example.org", port: 80 }],
    ["140.82.112.9", { kind: "host", host: "140.82.112.9", port: 443 }],
    ["[2606:4700::1111]:8443", { kind: "host", host: "2606:4700::1111", port: 8443 }],
  ])("%s", (entry, rule) => {
    expect(parseAllowEntry(entry)).toEqual(rule);
  });

  it.each([
    "host:0",
    "host:65536",
    "host:http",
    "2606:4700::1111",
    "*.com",
    "*.10.0.0.1",
    "bad host",
    "a..b",
    "-x.com",
    "http://x.com",
    "x.com/path",
    "user@x.com",
    "[fe80::1%eth0]:443",
    "*",
  ])("refuses %s with a message showing the expected forms", (entry) => {
    const parsed = parseAllowEntry(entry);
    expect(parsed).toHaveProperty("error");
    expect((parsed as { error: string }).error).toContain("api.openai.com");
  });

  it("splits on commas, skips blanks and reports every bad entry", () => {
    expect(parseAllowList(" a.com , ,b.com:8080,").rules).toHaveLength(2);
    expect(parseAllowList("a.com,bad host,x:0").errors).toHaveLength(2);
  });

  it("normalizes hosts: case, one trailing dot, brackets", () => {
    expect(normalizeHost("GitHub.COM.")).toBe("github.com");
    expect(normalizeHost("[::1]")).toBe("::1");
    expect(normalizeHost("github.com..")).toBeUndefined();
  });
});

describe("the egress decision", () => {
  type Row = [string, string, number, string[], { allow: true; addresses: string[] } | { allow: false; reason: RefusalReason }];
  it.each<Row>([
    // The configured GitHub endpoint on loopback (the simulator): allowed, exactly as configured.
    ["sim API", "127.0.0.1", 3001, [], { allow: true, addresses: ["127.0.0.1"] }],
    ["another loopback port", "127.0.0.1", 3002, [], { allow: false, reason: "non-public-address" }],
    ["loopback in another form", "::ffff:127.0.0.1", 3001, [], { allow: false, reason: "non-public-address" }],
    ["localhost by name", "localhost", 3001, ["127.0.0.1"], { allow: false, reason: "not-allowlisted" }],
    // Allowlisted names.
    ["allowed name", "api.openai.com", 443, ["104.18.6.192", "2606:4700::6812:6c0"], { allow: true, addresses: ["104.18.6.192", "2606:4700::6812:6c0"] }],
    ["uppercase and trailing dot", "API.OPENAI.COM.", 443, ["104.18.6.192"], { allow: true, addresses: ["104.18.6.192"] }],
    ["allowed name, default port only", "api.openai.com", 80, ["104.18.6.192"], { allow: false, reason: "port-not-allowed" }],
    ["explicit port", "registry.example.org", 8443, ["93.184.216.34"], { allow: true, addresses: ["93.184.216.34"] }],
    ["explicit port, not 443", "registry.example.org", 443, ["93.184.216.34"], { allow: false, reason: "port-not-allowed" }],
    ["wildcard subdomain", "api.anthropic.com", 443, ["160.79.104.10"], { allow: true, addresses: ["160.79.104.10"] }],
    ["wildcard deep subdomain", "a.b.anthropic.com", 443, ["160.79.104.10"], { allow: true, addresses: ["160.79.104.10"] }],
    ["wildcard does not cover the apex", "anthropic.com", 443, ["160.79.104.10"], { allow: false, reason: "not-allowlisted" }],
    ["suffix look-alike", "evilanthropic.com", 443, ["160.79.104.10"], { allow: false, reason: "not-allowlisted" }],
    ["prefix look-alike", "api.openai.com.evil.io", 443, ["1.2.3.4"], { allow: false, reason: "not-allowlisted" }],
    // Allowlisted names that resolve inward.
    ["allowed name → loopback", "api.openai.com", 443, ["127.0.0.1"], { allow: false, reason: "non-public-address" }],
    ["allowed name → private", "api.openai.com", 443, ["192.168.1.1"], { allow: false, reason: "non-public-address" }],
    ["allowed name → metadata", "api.anthropic.com", 443, ["169.254.169.254"], { allow: false, reason: "non-public-address" }],
    ["allowed name → mapped metadata", "api.anthropic.com", 443, ["::ffff:169.254.169.254"], { allow: false, reason: "non-public-address" }],
    ["allowed name → ULA", "api.openai.com", 443, ["fd00::1"], { allow: false, reason: "non-public-address" }],
    ["allowed name → one good, one private", "api.openai.com", 443, ["104.18.6.192", "10.0.0.1"], { allow: false, reason: "non-public-address" }],
    ["allowed name → nothing", "api.openai.com", 443, [], { allow: false, reason: "unresolved" }],
    ["allowed name → not an address", "api.openai.com", 443, ["banana"], { allow: false, reason: "unresolved" }],
    // IP literals.
    ["metadata literal", "169.254.169.254", 80, [], { allow: false, reason: "non-public-address" }],
    ["private literal", "10.0.0.1", 443, [], { allow: false, reason: "non-public-address" }],
    ["bracketed mapped literal", "[::ffff:a9fe:a9fe]", 80, [], { allow: false, reason: "non-public-address" }],
    ["link-local v6 literal", "fe80::1", 443, [], { allow: false, reason: "non-public-address" }],
    ["unspecified literal", "0.0.0.0", 3001, [], { allow: false, reason: "non-public-address" }],
    ["broadcast literal", "255.255.255.255", 443, [], { allow: false, reason: "non-public-address" }],
    ["public literal, not listed", "8.8.8.8", 443, [], { allow: false, reason: "not-allowlisted" }],
    ["public literal, listed", "140.82.112.9", 443, ["10.0.0.1"], { allow: true, addresses: ["140.82.112.9"] }],
    ["public v6 literal, listed", "[2606:4700::1111]", 443, [], { allow: true, addresses: ["2606:4700::1111"] }],
    // Not allowlisted, malformed.
    ["public name, not listed", "example.com", 443, ["93.184.216.34"], { allow: false, reason: "not-allowlisted" }],
    ["malformed", "exa mple.com", 443, [], { allow: false, reason: "malformed-host" }],
    ["zone index", "fe80::1%eth0", 443, [], { allow: false, reason: "malformed-host" }],
  ])("%s: %s:%d", (_name, host, port, addresses, expected) => {
    const decision = decideEgress(host, port, addresses, simPolicy);
    expect(decision).toMatchObject(expected);
    if (!decision.allow) expect(decision.detail.length).toBeGreaterThan(10);
  });

  it("lets real GitHub's hosts through on public addresses only", () => {
    expect(decideEgress("api.github.com", 443, ["140.82.112.6"], githubPolicy)).toMatchObject({ allow: true, github: true });
    expect(decideEgress("github.com", 443, ["140.82.112.3"], githubPolicy)).toMatchObject({ allow: true, github: true });
    expect(decideEgress("github.com", 22, ["140.82.112.3"], githubPolicy)).toMatchObject({ allow: false, reason: "port-not-allowed" });
    expect(decideEgress("uploads.github.com", 443, ["140.82.112.3"], githubPolicy)).toMatchObject({ allow: false, reason: "not-allowlisted" });
  });

  it("lets the configured GitHub host be private or loopback, never link-local", () => {
    expect(decideEgress("ghe.corp", 443, ["10.1.2.3"], ghePolicy)).toMatchObject({ allow: true, addresses: ["10.1.2.3"] });
    expect(decideEgress("ghe.corp", 443, ["127.0.0.1"], ghePolicy)).toMatchObject({ allow: true });
    const metadata = decideEgress("ghe.corp", 443, ["169.254.169.254"], ghePolicy);
    expect(metadata).toMatchObject({ allow: false, reason: "non-public-address" });
    expect(!metadata.allow && metadata.detail).toContain("link-local");
  });

  it("says what to do in a refusal", () => {
    const port = decideEgress("api.openai.com", 80, ["104.18.6.192"], simPolicy);
    expect(!port.allow && port.detail).toContain("add api.openai.com:80 to AGENT_NETWORK_ALLOW");
    const listed = decideEgress("example.com", 443, [], simPolicy);
    expect(!listed.allow && listed.detail).toContain("AGENT_NETWORK_ALLOW");
    const inward = decideEgress("api.openai.com", 443, ["192.168.1.1"], simPolicy);
    expect(!inward.allow && inward.detail).toContain("192.168.1.1 (private)");
  });

  it("admits before any lookup: a name outside the allowlist is refused without addresses", () => {
    expect(admitHost("exfil.attacker.example", 443, simPolicy)).toMatchObject({ allow: false, reason: "not-allowlisted" });
    expect(admitHost("api.openai.com", 443, simPolicy)).toMatchObject({ allow: true, literal: false, github: false });
    expect(admitHost("127.0.0.1", 3001, simPolicy)).toMatchObject({ allow: true, literal: true, github: true });
  });

  it("takes both GitHub URLs' endpoints, once each, with the scheme's default port", () => {
    expect(githubPolicy.github).toEqual([
      { host: "api.github.com", port: 443 },
      { host: "github.com", port: 443 },
    ]);
    expect(simPolicy.github).toEqual([{ host: "127.0.0.1", port: 3001 }]);
    expect(egressPolicy({ baseUrl: "http://[::1]/api/v3", serverUrl: "http://[::1]", networkAllow: [] }).github).toEqual([{ host: "::1", port: 80 }]);
  });
});
