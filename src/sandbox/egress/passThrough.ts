import type { Socket } from "node:net";
import { classifyAddress } from "./address.js";
import { admitHost, decideEgress } from "./decideEgress.js";
import { dialFirst, type Dial, type Resolve } from "./dial.js";
import type { EgressPolicy } from "./policy.js";

// Raw pipes for a GitHub on loopback (the simulator, a GitHub Enterprise on this host): the sandbox
// has a loopback of its own, so it listens on that host:port inside and sends the bytes here.

/** The configured GitHub endpoints whose address is loopback, each decided once, at start. */
export async function loopbackEndpoints(policy: EgressPolicy, resolve: Resolve): Promise<{ host: string; port: number }[]> {
  const found: { host: string; port: number }[] = [];
  for (const endpoint of policy.github) {
    const admitted = admitHost(endpoint.host, endpoint.port, policy);
    if (!admitted.allow) continue;
    const addresses = admitted.literal ? [admitted.host] : await resolve(admitted.host).catch(() => []);
    const decision = decideEgress(endpoint.host, endpoint.port, addresses, policy);
    if (!decision.allow) continue;
    const loopback = decision.addresses.find((a) => classifyAddress(a) === "loopback");
    if (loopback && !found.some((f) => f.host === loopback && f.port === endpoint.port)) found.push({ host: loopback, port: endpoint.port });
  }
  return found;
}

/** One connection from the sandbox: piped to the endpoint's decided address, nothing read before it is connected. */
export async function passThroughConnection(
  client: Socket,
  to: { host: string; port: number },
  dial: Dial,
  limits: { idleMs: number; dialMs: number },
  track: (s: Socket) => Socket,
) {
  client.on("error", () => client.destroy());
  client.pause();
  try {
    const upstream = track(await dialFirst(dial, [to.host], to.port, limits.dialMs));
    if (client.destroyed) return upstream.destroy();
    pipeBoth(client, upstream, limits.idleMs);
    client.resume();
  } catch {
    client.destroy();
  }
}

/** Pipes two sockets both ways; either end closing, failing or idling closes both. */
export function pipeBoth(a: Socket, b: Socket, idleMs: number): void {
  const end = () => {
    a.destroy();
    b.destroy();
  };
  for (const socket of [a, b]) {
    socket.setTimeout(idleMs, end);
    socket.on("error", end);
    socket.on("close", end);
  }
  a.pipe(b);
  b.pipe(a);
}
