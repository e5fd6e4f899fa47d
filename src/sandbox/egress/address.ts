import { isIPv4, isIPv6 } from "node:net";

/**
 * What kind of address an IP is, for the egress decision: only `public` may be dialled for an
 * AGENT_NETWORK_ALLOW entry; the configured GitHub endpoints may also be `loopback` or `private`.
 * IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are classed by that address.
 */
export type AddressClass = "public" | "loopback" | "private" | "link-local" | "unspecified" | "multicast" | "broadcast" | "reserved";

/** An IPv4 address as a 32-bit unsigned number. */
type V4 = number;

const v4 = (a: number, b: number, c: number, d: number): V4 => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
const inV4 = (ip: V4, base: V4, bits: number): boolean => bits === 0 || ip >>> (32 - bits) === base >>> (32 - bits);

/** IPv4 ranges that are not public unicast, most specific first (the first match names the class). */
const V4_RANGES: ReadonlyArray<[V4, number, AddressClass]> = [
  [v4(255, 255, 255, 255), 32, "broadcast"],
  [v4(0, 0, 0, 0), 32, "unspecified"],
  [v4(0, 0, 0, 0), 8, "reserved"], // "this network"
  [v4(127, 0, 0, 0), 8, "loopback"],
  [v4(10, 0, 0, 0), 8, "private"],
  [v4(172, 16, 0, 0), 12, "private"],
  [v4(192, 168, 0, 0), 16, "private"],
  [v4(100, 64, 0, 0), 10, "private"], // carrier-grade NAT, shared address space
  [v4(169, 254, 0, 0), 16, "link-local"], // includes the cloud metadata address 169.254.169.254
  [v4(192, 0, 0, 0), 24, "reserved"], // IETF protocol assignments
  [v4(192, 0, 2, 0), 24, "reserved"], // documentation
  [v4(198, 51, 100, 0), 24, "reserved"],
  [v4(203, 0, 113, 0), 24, "reserved"],
  [v4(198, 18, 0, 0), 15, "reserved"], // benchmarking
  [v4(224, 0, 0, 0), 4, "multicast"],
  [v4(240, 0, 0, 0), 4, "reserved"],
];

function classifyV4(ip: V4): AddressClass {
  for (const [base, bits, kind] of V4_RANGES) if (inV4(ip, base, bits)) return kind;
  return "public";
}

function parseV4(text: string): V4 {
  const [a, b, c, d] = text.split(".").map(Number) as [number, number, number, number];
  return v4(a, b, c, d);
}

/** The eight 16-bit groups of an IPv6 address (already validated by isIPv6; a trailing dotted IPv4 allowed). */
function parseV6(text: string): number[] {
  let head = text;
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (dotted) {
    const ip = parseV4(dotted[1]!);
    tail.push(ip >>> 16, ip & 0xffff);
    head = head.slice(0, dotted.index + 1);
    if (head.endsWith(":") && !head.endsWith("::")) head = head.slice(0, -1);
  }
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const [left, right] = head.includes("::") ? (head.split("::") as [string, string]) : [head, undefined];
  const before = groups(left);
  const after = right === undefined ? [] : groups(right);
  const missing = 8 - before.length - after.length - tail.length;
  return [...before, ...new Array<number>(right === undefined ? 0 : missing).fill(0), ...after, ...tail];
}

const embeddedV4 = (g: number[], at: number): V4 => ((g[at]! << 16) | g[at + 1]!) >>> 0;

function classifyV6(g: number[]): AddressClass {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return "unspecified";
  if (zeros(0, 7) && g[7] === 1) return "loopback";
  if (zeros(0, 5) && g[5] === 0xffff) return classifyV4(embeddedV4(g, 6)); // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 6)) return classifyV4(embeddedV4(g, 6)); // ::a.b.c.d (compatible, deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyV4(embeddedV4(g, 6)); // NAT64 64:ff9b::/96
  const first = g[0]!;
  if (first >= 0xff00) return "multicast";
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xffc0) === 0xfec0) return "private"; // site-local, deprecated
  if ((first & 0xfe00) === 0xfc00) return "private"; // unique local fc00::/7
  if (first === 0x2002) return classifyV4(embeddedV4(g, 1)); // 6to4 embeds the IPv4 gateway
  if (first === 0x2001 && g[1] === 0) return "reserved"; // Teredo: an obfuscated IPv4 inside
  if (first === 0x2001 && g[1] === 0xdb8) return "reserved"; // documentation
  // Global unicast is 2000::/3; everything else (discard-only 100::/64, NAT64 local use, unassigned) is not dialled.
  return (first & 0xe000) === 0x2000 ? "public" : "reserved";
}

/** The class of an IP literal (IPv4, or IPv6 without brackets or zone), or undefined when `text` is not one. */
export function classifyAddress(text: string): AddressClass | undefined {
  if (isIPv4(text)) return classifyV4(parseV4(text));
  if (isIPv6(text) && !text.includes("%")) return classifyV6(parseV6(text.toLowerCase()));
  return undefined;
}
