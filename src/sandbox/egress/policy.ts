import { ConfigError } from "../../errors.js";
import { normalizeHost, type AllowRule } from "./allowList.js";

/** A host (normalized) and port. */
export interface Endpoint {
  host: string;
  port: number;
}

/** Who the agent may reach through the egress proxy. */
export interface EgressPolicy {
  /** The configured GitHub API and git/web hosts: the operator chose them, so they may be loopback or private (the simulator in tests, an internal GitHub Enterprise). */
  github: readonly Endpoint[];
  /** AGENT_NETWORK_ALLOW: public addresses only. */
  allow: readonly AllowRule[];
}

/** The host and port a URL connects to (the scheme's default port when it names none). */
export function endpointOf(url: string): Endpoint {
  const parsed = new URL(url);
  const host = normalizeHost(parsed.hostname);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : parsed.protocol === "http:" ? 80 : undefined;
  if (host === undefined || port === undefined)
    throw new ConfigError(`The GitHub URL ${url} has no host and port an agent could reach; check GHE_HOST and GHE_PROTOCOL.`);
  return { host, port };
}

/** The policy of an app: its GitHub API (`baseUrl`) and git host (`serverUrl`), plus AGENT_NETWORK_ALLOW. */
export function egressPolicy(config: { baseUrl: string; serverUrl: string; networkAllow: readonly AllowRule[] }): EgressPolicy {
  const github: Endpoint[] = [];
  for (const endpoint of [endpointOf(config.baseUrl), endpointOf(config.serverUrl)]) {
    if (!github.some((e) => e.host === endpoint.host && e.port === endpoint.port)) github.push(endpoint);
  }
  return { github, allow: config.networkAllow };
}
