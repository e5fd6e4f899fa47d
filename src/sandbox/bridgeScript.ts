import { SandboxError } from "../errors.js";
import { EGRESS_DIR } from "./bwrapArgs.js";
import type { EgressEndpoints } from "./egress/egressProxy.js";

/** The port inside the sandbox where the agent's HTTP(S)_PROXY listens, bridged to the egress proxy's socket. */
export const PROXY_PORT = 3128;
export const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`;

/** The file descriptor on which the sandbox's shell says it is up (bridges listening), before the release gate. */
export const READY_FD = 3;

/** A socket file name socat's address syntax takes as is (no `:` or `,`). */
const SOCKET_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * Waits, without forking, until a listener `pid` listens on `address` (as /proc/net/tcp spells it);
 * exits 125 when it died instead (socat missing, the port taken).
 */
const WAIT = `listening() {
  while kill -0 "$1" 2>/dev/null; do
    while read -r _ local _ state _; do [ "$local" = "$2" ] && [ "$state" = 0A ] && return 0; done </proc/net/tcp
  done
  echo "sandbox: the network bridge to $3 did not start (is socat installed?)" >&2
  kill $bridges 2>/dev/null
  exit 125
}`;

/** Shell the release gate runs inside the sandbox (releaseGate.ts). */
export interface SandboxShell {
  /** Before the gate's read: starts the bridges and waits until they listen, then writes one byte on READY_FD. */
  prelude: string;
  /**
   * After the agent (or instead of it, when the gate reads end-of-file): stops the bridges. bwrap's
   * init waits for every process in the sandbox, so a bridge left running would keep it up.
   */
  epilogue: string | undefined;
}

/**
 * The socat bridges from TCP ports on the sandbox's loopback to the egress proxy's sockets; the
 * byte on READY_FD (closed after, so the agent does not inherit it) tells the app the sandbox came up.
 */
export function bridgeScript(endpoints: EgressEndpoints | undefined): SandboxShell {
  const bridges = endpoints ? [{ host: "127.0.0.1", port: PROXY_PORT, socket: endpoints.proxySocket }, ...endpoints.passThrough] : [];
  const lines = bridges.length > 0 ? [WAIT, 'bridges=""'] : [];
  // All bridges start at once, then each is waited for: their start-ups overlap.
  const waits: string[] = [];
  bridges.forEach(({ host, port, socket }, i) => {
    if (!SOCKET_NAME.test(socket)) throw new SandboxError(`The egress socket name ${JSON.stringify(socket)} cannot be bridged (AGENT_SANDBOX=bwrap).`);
    const address = procNetAddress(host, port);
    lines.push(`socat TCP-LISTEN:${port},bind=${address.ip},fork,reuseaddr UNIX-CONNECT:${EGRESS_DIR}/${socket} </dev/null ${READY_FD}>&- &`, `bridge${i}=$!`, `bridges="$bridges $!"`);
    waits.push(`listening $bridge${i} ${address.hex} ${address.ip}:${port}`);
  });
  lines.push(...waits);
  lines.push(`printf . >&${READY_FD}`, `exec ${READY_FD}>&-`);
  return { prelude: lines.join("\n"), epilogue: bridges.length > 0 ? "kill $bridges 2>/dev/null" : undefined };
}

/** An IPv4 loopback address and port as /proc/net/tcp writes them (little-endian hex). */
function procNetAddress(host: string, port: number): { ip: string; hex: string } {
  const ip = host === "localhost" ? "127.0.0.1" : host;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!octets || octets.slice(1).some((o) => Number(o) > 255) || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new SandboxError(`Cannot bridge ${host}:${port} into the sandbox: only IPv4 loopback addresses are bridged (AGENT_SANDBOX=bwrap).`);
  }
  const bytes = [127, ...octets.slice(1).map(Number)].reverse();
  const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, "0");
  return { ip, hex: `${bytes.map((b) => hex(b, 2)).join("")}:${hex(port, 4)}` };
}
