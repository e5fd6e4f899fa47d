import { SandboxError } from "../errors.js";
import { EGRESS_DIR } from "./bwrapArgs.js";
import type { EgressEndpoints } from "./egress/egressProxy.js";

/** The port inside the sandbox where the agent's HTTP(S)_PROXY listens, bridged to the egress proxy's socket. */
export const PROXY_PORT = 3128;
export const PROXY_URL = `http://127.0.0.1:${PROXY_PORT}`;

/** The round's file descriptor on which the sandbox's shell says it is up, before the release gate. */
export const READY_FD = 3;

/** The holder's descriptors: bwrap's --info-fd (its JSON names the namespaces), and the bridges' "listening". */
export const HOLDER_INFO_FD = 3;
export const HOLDER_READY_FD = 4;

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

/** Shell the release gate runs inside the round's sandbox (releaseGate.ts), before its read. */
export interface SandboxShell {
  prelude: string;
}

/** The round's prelude: the byte on READY_FD (closed after, so the agent does not inherit it) tells the app the sandbox came up. */
export const ROUND_SHELL: SandboxShell = { prelude: `printf . >&${READY_FD}\nexec ${READY_FD}>&-` };

/**
 * The script a warm network namespace's holder runs (networkSpares.ts): socat bridges from TCP ports
 * on its loopback to the egress proxy's sockets, all started at once and then each waited for; one
 * byte on HOLDER_READY_FD once they listen. Then it stays until its stdin, a pipe from the app, ends:
 * the app released it, or died. Its shell's exit ends the namespace's init, and with it everything
 * in it (a death signal from bwrap does not survive an unprivileged user namespace's set-up).
 */
export function holderScript(endpoints: EgressEndpoints): string {
  const bridges = [{ host: "127.0.0.1", port: PROXY_PORT, socket: endpoints.proxySocket }, ...endpoints.passThrough];
  const lines = [WAIT, 'bridges=""'];
  const waits: string[] = [];
  bridges.forEach(({ host, port, socket }, i) => {
    if (!SOCKET_NAME.test(socket)) throw new SandboxError(`The egress socket name ${JSON.stringify(socket)} cannot be bridged (AGENT_SANDBOX=bwrap).`);
    const address = procNetAddress(host, port);
    const closed = [HOLDER_INFO_FD, HOLDER_READY_FD].map((fd) => `${fd}>&-`).join(" ");
    lines.push(
      `socat TCP-LISTEN:${port},bind=${address.ip},fork,reuseaddr UNIX-CONNECT:${EGRESS_DIR}/${socket} </dev/null ${closed} &`,
      `bridge${i}=$!`,
      `bridges="$bridges $!"`,
    );
    waits.push(`listening $bridge${i} ${address.hex} ${address.ip}:${port}`);
  });
  lines.push(...waits, `printf . >&${HOLDER_READY_FD}`, `exec ${HOLDER_READY_FD}>&- ${HOLDER_INFO_FD}>&-`, "read -r _", "kill $bridges 2>/dev/null");
  return lines.join("\n");
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
