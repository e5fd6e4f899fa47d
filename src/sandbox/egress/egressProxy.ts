/**
 * The agents' egress proxy: the HTTP/CONNECT server and the loopback pass-through sockets it listens on.
 * Kept whole (~250 lines): its handlers share one closure (tracked sockets, limits, the logged decision); what stands alone is in its siblings.
 */
import { rmSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { admitHost, decideEgress, hostPort, type EgressDecision } from "./decideEgress.js";
import { dialFirst, systemResolve, tcpDial, type Dial, type Resolve } from "./dial.js";
import { loopbackEndpoints, passThroughConnection, pipeBoth } from "./passThrough.js";
import type { EgressPolicy } from "./policy.js";
import { listenOn, prepareDirectory } from "./socketDir.js";

export interface EgressEndpoints {
  /** Directory holding the unix sockets below; the sandbox binds it read-only (mode 0755 dir; sockets usable by the agent's uid, also an unprivileged app). */
  dir: string;
  /** File name (in dir) of the HTTP/CONNECT proxy socket. */
  proxySocket: string;
  /** Loopback GitHub endpoints (the configured API / git host when its address is loopback, as with the test simulator): the sandbox listens on host:port inside and forwards raw bytes to `socket` (a file name in dir), which your side pipes to that same host:port. Empty for real GitHub. */
  passThrough: { host: string; port: number; socket: string }[];
}

export interface EgressProxy {
  endpoints: EgressEndpoints;
  close(): Promise<void>;
}

/** The narrow logger the proxy writes to (pino's fits). */
export interface EgressLog {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface EgressLimits {
  /** Open client connections per socket (tunnels included); more are closed at once. */
  maxConnections: number;
  /** Largest request head (request line and headers). */
  maxHeaderBytes: number;
  /** A tunnel, request or pass-through connection idle this long is closed. */
  idleMs: number;
  /** Time to connect to the decided address. */
  dialMs: number;
}

const DEFAULT_EGRESS_LIMITS: EgressLimits = { maxConnections: 256, maxHeaderBytes: 16 * 1024, idleMs: 10 * 60_000, dialMs: 15_000 };

export interface EgressProxyOptions {
  /** Created (mode 0755) if missing; holds nothing but the proxy's sockets. */
  dir: string;
  policy: EgressPolicy;
  log: EgressLog;
  /** Name lookup (tests inject a fake); the system resolver by default. */
  resolve?: Resolve;
  /** TCP dialer (tests inject one that records); net.connect by default. */
  connect?: Dial;
  limits?: Partial<EgressLimits>;
  /** Plain-HTTP requests to `host` are the round channel's (src/channel/), handled in this process: never resolved or dialled. */
  channel?: { host: string; handle(req: IncomingMessage, res: ServerResponse): void };
}

/** The proxy's directory under DATA_DIR. */
export const EGRESS_DIR = "egress";
const PROXY_SOCKET = "proxy.sock";

/** Headers that belong to one hop, never forwarded (RFC 9110 §7.6.1), plus the proxy's own credentials. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase());
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.includes(name)));
}

/** `host:port` of a CONNECT request (an IPv6 host in brackets). */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  const port = match ? Number(match[2]) : 0;
  return match && port >= 1 && port <= 65_535 ? { host: match[1]!, port } : undefined;
}

const refusalText = (detail: string) =>
  `Refused by the app's egress proxy: ${detail}. Agents reach only the GitHub API and git hosts and the hosts in AGENT_NETWORK_ALLOW.\n`;

function rawResponse(status: string, text: string): string {
  return `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`;
}

/**
 * Starts the agents' egress proxy: an HTTP proxy (CONNECT tunnels and absolute-form `http://`
 * requests) on a unix socket in `dir`, and one raw pipe per loopback GitHub endpoint. Every target
 * is decided (src/sandbox/egress/decideEgress.ts) before anything is dialled, and only the decided
 * addresses are dialled, so a DNS answer cannot change in between.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const { dir, policy, log } = options;
  const resolve = options.resolve ?? systemResolve;
  const dial = options.connect ?? tcpDial;
  const limits = { ...DEFAULT_EGRESS_LIMITS, ...options.limits };
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const names: string[] = [];

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    return socket;
  };

  /** Admits, resolves and decides; logs every refusal where it is made. */
  const decide = async (rawHost: string, port: number, via: string): Promise<EgressDecision> => {
    const admitted = admitHost(rawHost, port, policy);
    let decision: EgressDecision;
    if (!admitted.allow) decision = admitted;
    else if (admitted.literal) decision = decideEgress(admitted.host, port, [admitted.host], policy);
    else {
      const addresses = await resolve(admitted.host).catch((error: unknown) => {
        // The refusal below is the warn line; this keeps the resolver's own words.
        log.debug({ host: admitted.host, port, err: (error as Error).message }, "egress: could not resolve an allowed host");
        return [];
      });
      decision = decideEgress(admitted.host, port, addresses, policy);
    }
    if (decision.allow) log.debug({ host: decision.host, port, addresses: decision.addresses, via }, "egress allowed");
    else log.warn({ host: decision.host, port, reason: decision.reason, detail: decision.detail, via }, `egress refused: ${decision.detail}`);
    return decision;
  };

  // The round channel's HTTP inside a tunnel (undici's proxy agent tunnels even plain http://): served here, never dialled.
  const { channel } = options;
  const channelServer = channel ? createHttpServer((req, res) => channel.handle(req, res)) : undefined;

  const onConnect = async (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on("error", () => client.destroy());
    client.setTimeout(limits.idleMs, () => client.destroy());
    const target = parseAuthority(req.url ?? "");
    if (!target) {
      client.end(rawResponse("400 Bad Request", "CONNECT needs host:port.\n"));
      return;
    }
    if (channelServer && target.host === channel?.host) {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) client.unshift(head);
      channelServer.emit("connection", client);
      return;
    }
    const decision = await decide(target.host, target.port, "CONNECT");
    if (!decision.allow) {
      client.end(rawResponse(decision.reason === "unresolved" ? "502 Bad Gateway" : "403 Forbidden", refusalText(decision.detail)));
      return;
    }
    let upstream: Socket;
    try {
      upstream = track(await dialFirst(dial, decision.addresses, decision.port, limits.dialMs));
    } catch (error) {
      client.end(rawResponse("502 Bad Gateway", `Could not connect to ${hostPort(decision.host, decision.port)}: ${(error as Error).message}\n`));
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    pipeBoth(client, upstream, limits.idleMs);
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    let url: URL | undefined;
    try {
      url = new URL(req.url ?? "");
    } catch {
      url = undefined;
    }
    if (url?.protocol !== "http:") {
      res
        .writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" })
        .end("This is a proxy: send CONNECT host:port, or an absolute http:// URL.\n");
      return;
    }
    if (channel?.host === url.hostname) return channel.handle(req, res);
    const port = url.port ? Number(url.port) : 80;
    const decision = await decide(url.hostname, port, req.method ?? "GET");
    if (!decision.allow) {
      res
        .writeHead(decision.reason === "unresolved" ? 502 : 403, { "content-type": "text/plain; charset=utf-8", connection: "close" })
        .end(refusalText(decision.detail));
      return;
    }
    let upstream: Socket;
    try {
      upstream = track(await dialFirst(dial, decision.addresses, port, limits.dialMs));
    } catch (error) {
      res
        .writeHead(502, { "content-type": "text/plain; charset=utf-8" })
        .end(`Could not connect to ${hostPort(decision.host, port)}: ${(error as Error).message}\n`);
      return;
    }
    upstream.setTimeout(limits.idleMs, () => upstream.destroy());
    const forward = httpRequest({
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: { ...endToEnd(req.headers), host: url.host },
      createConnection: () => upstream,
    });
    forward.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    });
    forward.on("error", (error) => {
      if (!res.headersSent)
        res.writeHead(502, { "content-type": "text/plain; charset=utf-8" }).end(`${hostPort(decision.host, port)} failed: ${error.message}\n`);
      else res.destroy();
    });
    res.on("close", () => upstream.destroy());
    req.pipe(forward);
  };

  const proxy = createHttpServer({ maxHeaderSize: limits.maxHeaderBytes, headersTimeout: 30_000, requestTimeout: 0 });
  proxy.keepAliveTimeout = 30_000;
  proxy.setTimeout(limits.idleMs);
  proxy.on("connection", (socket: Socket) => track(socket));
  proxy.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => void onConnect(req, client, head).catch(() => client.destroy()));
  proxy.on("request", (req: IncomingMessage, res: ServerResponse) => void onRequest(req, res).catch(() => res.destroy()));
  proxy.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    socket.end(rawResponse(error.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request", "Bad proxy request.\n"));
  });

  const close = async () => {
    const closed = servers.map((server) => new Promise<void>((done) => server.close(() => done())));
    for (const socket of sockets) socket.destroy();
    await Promise.all(closed);
    for (const name of names) rmSync(join(dir, name), { force: true });
  };

  try {
    prepareDirectory(dir);
    await listenOn(proxy, dir, PROXY_SOCKET, limits.maxConnections);
    servers.push(proxy);
    names.push(PROXY_SOCKET);
    const passThrough: EgressEndpoints["passThrough"] = [];
    for (const [index, endpoint] of (await loopbackEndpoints(policy, resolve)).entries()) {
      const socket = `github-${index}.sock`;
      const server = createNetServer((client) => void passThroughConnection(track(client), endpoint, dial, limits, track));
      await listenOn(server, dir, socket, limits.maxConnections);
      servers.push(server);
      names.push(socket);
      passThrough.push({ ...endpoint, socket });
    }
    log.info({ dir, passThrough: passThrough.map((p) => hostPort(p.host, p.port)), allow: policy.allow.length }, "egress proxy listening for agents");
    return { endpoints: { dir, proxySocket: PROXY_SOCKET, passThrough }, close };
  } catch (error) {
    await close();
    throw error;
  }
}
