import { isIP } from "node:net";

/** The port an AGENT_NETWORK_ALLOW entry without one allows: HTTPS. */
export const DEFAULT_ALLOW_PORT = 443;

/** One AGENT_NETWORK_ALLOW entry: an exact host, or every subdomain of `domain` (`*.domain`), on one port. */
export type AllowRule = { kind: "host"; host: string; port: number } | { kind: "subdomains"; domain: string; port: number };

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * A host as the decision compares it: lowercase, without one trailing dot, IPv6 without brackets.
 * Undefined when it is neither a DNS name nor an IP literal (a zone index, spaces, a userinfo part).
 */
export function normalizeHost(raw: string): string | undefined {
  let host = raw.trim().toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) {
    host = host.slice(1, -1);
    return isIP(host) === 6 && !host.includes("%") ? host : undefined;
  }
  if (isIP(host) === 6) return host.includes("%") ? undefined : host;
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (isIP(host) === 4) return host;
  if (host.length === 0 || host.length > 253) return undefined;
  return host.split(".").every((label) => LABEL.test(label)) ? host : undefined;
}

/** A port number 1-65535 from its decimal text, or undefined. */
export function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : undefined;
}

/**
 * Parses one AGENT_NETWORK_ALLOW entry: `host`, `*.domain`, `host:port`, `*.domain:port`, an IPv4
 * literal or a bracketed IPv6 literal (`[2001:db8::1]:8443`). Returns a message saying what is wrong otherwise.
 */
export function parseAllowEntry(entry: string): AllowRule | { error: string } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::([^:]*))?$/.exec(entry.trim());
  const bad = (why: string) => ({ error: `"${entry}" ${why}; entries look like api.openai.com, *.anthropic.com or registry.example.com:8443` });
  if (!match) return bad("is not host, *.domain or host:port (an IPv6 address goes in brackets)");
  const port = match[2] === undefined ? DEFAULT_ALLOW_PORT : parsePort(match[2]);
  if (port === undefined) return bad("has a port that is not a number from 1 to 65535");
  const wildcard = match[1]!.startsWith("*.");
  const host = normalizeHost(wildcard ? match[1]!.slice(2) : match[1]!);
  if (host === undefined) return bad("is not a host name or IP address");
  if (wildcard) {
    if (isIP(host) !== 0 || !host.includes(".")) return bad("puts * before an IP address or a top-level domain");
    return { kind: "subdomains", domain: host, port };
  }
  return { kind: "host", host, port };
}

/** Parses AGENT_NETWORK_ALLOW (comma-separated entries); the messages of every bad entry, or the rules. */
export function parseAllowList(text: string): { rules: AllowRule[]; errors: string[] } {
  const rules: AllowRule[] = [];
  const errors: string[] = [];
  for (const entry of text
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const parsed = parseAllowEntry(entry);
    if ("error" in parsed) errors.push(parsed.error);
    else rules.push(parsed);
  }
  return { rules, errors };
}

/** Whether `rule` names `host` (normalized); the port is compared by the caller. */
export function ruleMatchesHost(rule: AllowRule, host: string): boolean {
  return rule.kind === "host" ? rule.host === host : host.endsWith(`.${rule.domain}`);
}
