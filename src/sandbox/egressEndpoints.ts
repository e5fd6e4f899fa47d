/**
 * What the egress proxy (src/sandbox/egress/) hands the sandbox: unix sockets the sandbox binds and
 * bridges to TCP ports inside it. A copy of that module's type, kept in step with it.
 */
export interface EgressEndpoints {
  /** Directory holding the unix sockets below; bound read-only into the sandbox. */
  dir: string;
  /** File name (in dir) of the HTTP/CONNECT proxy socket. */
  proxySocket: string;
  /** Loopback GitHub endpoints (a loopback API / git host, as in tests): inside the sandbox listen on host:port and forward to the socket file in dir. */
  passThrough: { host: string; port: number; socket: string }[];
}
