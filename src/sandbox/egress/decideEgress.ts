import { isIP } from "node:net";
import { classifyAddress, type AddressClass } from "./address.js";
import { normalizeHost, ruleMatchesHost } from "./allowList.js";
import type { EgressPolicy } from "./policy.js";

/** Why a request is refused; `detail` is the one line the agent and the log see. */
export type RefusalReason = "malformed-host" | "not-allowlisted" | "port-not-allowed" | "unresolved" | "non-public-address";

export interface EgressRefusal {
  allow: false;
  host: string;
  port: number;
  reason: RefusalReason;
  detail: string;
}

/** A host the policy names, before its addresses are known. `literal`: the host is an IP address (nothing to resolve). */
export interface AdmittedHost {
  allow: true;
  host: string;
  port: number;
  github: boolean;
  literal: boolean;
}

/** An allowed request: dial exactly `addresses` (in order), never a fresh lookup of `host`. */
export interface EgressAllowed {
  allow: true;
  host: string;
  port: number;
  github: boolean;
  addresses: string[];
}

export type EgressDecision = EgressAllowed | EgressRefusal;

/** Classes the configured GitHub endpoints may resolve to; AGENT_NETWORK_ALLOW hosts must be public. */
const GITHUB_CLASSES: ReadonlySet<AddressClass> = new Set(["public", "loopback", "private"]);

const refuse = (host: string, port: number, reason: RefusalReason, detail: string): EgressRefusal => ({ allow: false, host, port, reason, detail });

/**
 * Whether the policy names host:port at all. Checked before any DNS lookup, so a name outside the
 * allowlist is never resolved (a lookup of an arbitrary name is itself a way to send data out).
 */
export function admitHost(rawHost: string, port: number, policy: EgressPolicy): AdmittedHost | EgressRefusal {
  const host = normalizeHost(rawHost);
  if (host === undefined) return refuse(rawHost, port, "malformed-host", `"${rawHost}" is not a host name or IP address`);
  const literal = isIP(host) !== 0;
  if (policy.github.some((e) => e.host === host && e.port === port)) return { allow: true, host, port, github: true, literal };
  const kind = literal ? classifyAddress(host) : "public";
  if (kind !== "public")
    return refuse(host, port, "non-public-address", `${host} is not a public address (${kind}); only the GitHub API and git hosts may be one`);
  const rules = policy.allow.filter((rule) => ruleMatchesHost(rule, host));
  if (rules.some((rule) => rule.port === port)) return { allow: true, host, port, github: false, literal };
  const githubPorts = policy.github.filter((e) => e.host === host).map((e) => e.port);
  const ports = [...new Set([...githubPorts, ...rules.map((r) => r.port)])];
  if (ports.length > 0) {
    return refuse(
      host,
      port,
      "port-not-allowed",
      `${host} is allowed on port ${ports.join(", ")} only, not ${port}; add ${hostPort(host, port)} to AGENT_NETWORK_ALLOW to allow it`,
    );
  }
  return refuse(host, port, "not-allowlisted", `${hostPort(host, port)} is neither the GitHub API or git host nor in AGENT_NETWORK_ALLOW`);
}

/**
 * The egress decision: host:port as the agent asked for it, the addresses it resolved to (the host
 * itself for an IP literal), and the policy. Every address must be acceptable, so a name that
 * resolves partly to an internal address is refused whole rather than dialled by luck of order.
 */
export function decideEgress(rawHost: string, port: number, addresses: readonly string[], policy: EgressPolicy): EgressDecision {
  const admitted = admitHost(rawHost, port, policy);
  if (!admitted.allow) return admitted;
  const { host, github } = admitted;
  const dial = admitted.literal ? [host] : addresses.map((a) => a.toLowerCase());
  if (dial.length === 0) return refuse(host, port, "unresolved", `${host} resolved to no address`);
  for (const address of dial) {
    const kind = classifyAddress(address);
    if (kind === undefined) return refuse(host, port, "unresolved", `${host} resolved to "${address}", which is not an IP address`);
    const acceptable = kind === "public" || (github && GITHUB_CLASSES.has(kind));
    if (!acceptable) {
      const why = github ? `a ${kind} address is never dialled` : "only the GitHub API and git hosts may have one that is not public";
      return refuse(host, port, "non-public-address", `${host} resolves to ${address} (${kind}); ${why}`);
    }
  }
  return { allow: true, host, port, github, addresses: dial };
}

/** host:port, with an IPv6 host in brackets. */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
