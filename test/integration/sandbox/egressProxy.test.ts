import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseAllowList } from "../../../src/sandbox/egress/allowList.js";
import { startEgressProxy, type EgressLog, type EgressProxy } from "../../../src/sandbox/egress/egressProxy.js";
import { egressPolicy } from "../../../src/sandbox/egress/policy.js";
import { waitFor } from "../../support/harness.js";
import { requirePrograms } from "../../support/programs.js";

beforeAll(() => requirePrograms("setpriv"));

/** A loopback HTTP server that answers with what it received. */
async function echoServer(name: string): Promise<{ server: Server; port: number; seen: { url: string; headers: IncomingHttpHeaders }[] }> {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain", "x-served-by": name }).end(`${name} ${req.method} ${req.url}`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

let tmp: string;
let github: Awaited<ReturnType<typeof echoServer>>;
/** Stands in for a public model provider: the injected dialer sends its decided public address here. */
let model: Awaited<ReturnType<typeof echoServer>>;
let proxy: EgressProxy;
const MODEL_ADDRESS = "140.82.112.50";
const resolved: string[] = [];
const dialled: { address: string; port: number }[] = [];
const logged: { level: string; fields: Record<string, unknown>; message: string }[] = [];
const log: EgressLog = {
  debug: (fields, message) => logged.push({ level: "debug", fields, message }),
  info: (fields, message) => logged.push({ level: "info", fields, message }),
  warn: (fields, message) => logged.push({ level: "warn", fields, message }),
};
const DNS: Record<string, string[]> = {
  "api.model.example": [MODEL_ADDRESS],
  "inward.cdn.example": ["127.0.0.1"],
  "lan.cdn.example": ["192.168.1.1"],
  "metadata.cdn.example": ["::ffff:169.254.169.254"],
};

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "egress-"));
  github = await echoServer("github");
  model = await echoServer("model");
  const { rules } = parseAllowList("api.model.example, *.cdn.example");
  proxy = await startEgressProxy({
    dir: join(tmp, "egress"),
    policy: egressPolicy({ baseUrl: `http://127.0.0.1:${github.port}/api/v3`, serverUrl: `http://127.0.0.1:${github.port}`, networkAllow: rules }),
    log,
    resolve: async (host) => {
      resolved.push(host);
      return DNS[host] ?? [];
    },
    connect: (to) => {
      dialled.push(to);
      // Only loopback is ever dialled: the model's public address is the local stand-in.
      if (to.address === MODEL_ADDRESS) return connect({ host: "127.0.0.1", port: model.port });
      if (to.address !== "127.0.0.1") throw new Error(`the test dialer refuses ${to.address}`);
      return connect({ host: to.address, port: to.port });
    },
  });
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all([github, model].map((s) => new Promise((resolve) => s?.server.close(resolve))));
  rmSync(tmp, { recursive: true, force: true });
});

afterEach(() => {
  dialled.length = 0;
  resolved.length = 0;
});

const proxyPath = () => join(proxy.endpoints.dir, proxy.endpoints.proxySocket);

interface Answer {
  status: number;
  body: string;
  socket: Socket;
}

/** CONNECT through the proxy's unix socket; the tunnel (on 200) or the refusal text. */
function connectVia(authority: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: proxyPath(), method: "CONNECT", path: authority, headers: { host: authority } });
    req.on("connect", (res, socket, head) => {
      if (res.statusCode === 200) return resolve({ status: 200, body: "", socket });
      let body = head.toString();
      socket.on("data", (chunk: Buffer) => (body += chunk.toString()));
      socket.on("close", () => resolve({ status: res.statusCode ?? 0, body, socket }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A plain HTTP request over an open socket (a tunnel or a pass-through). */
function getOver(socket: Socket, host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ createConnection: () => socket, host, path, headers: { host, connection: "close" } }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** An absolute-form request to the proxy, as a client configured with HTTP_PROXY sends it. */
function proxiedGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: proxyPath(), path: url, headers: { host: URL.canParse(url) ? new URL(url).host : "proxy", ...headers } }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the egress proxy: allowed", () => {
  it("tunnels CONNECT to the configured loopback GitHub", async () => {
    const tunnel = await connectVia(`127.0.0.1:${github.port}`);
    expect(tunnel.status).toBe(200);
    const answer = await getOver(tunnel.socket, `127.0.0.1:${github.port}`, "/api/v3/rate_limit");
    expect(answer).toEqual({ status: 200, body: "github GET /api/v3/rate_limit" });
    expect(dialled).toEqual([{ address: "127.0.0.1", port: github.port }]);
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: "debug",
        message: "egress allowed",
        fields: expect.objectContaining({ host: "127.0.0.1", port: github.port, via: "CONNECT" }),
      }),
    );
  });

  it("forwards an absolute-form HTTP request without hop-by-hop headers or proxy credentials", async () => {
    const answer = await proxiedGet(`http://127.0.0.1:${github.port}/api/v3/user?x=1`, {
      "proxy-authorization": "Basic c2VjcmV0",
      connection: "x-hop",
      "x-hop": "1",
      "x-end-to-end": "kept",
    });
    expect(answer).toEqual({ status: 200, body: "github GET /api/v3/user?x=1" });
    const seen = github.seen.at(-1)!;
    expect(seen.headers["x-end-to-end"]).toBe("kept");
    expect(seen.headers["proxy-authorization"]).toBeUndefined();
    expect(seen.headers["x-hop"]).toBeUndefined();
    expect(seen.headers.host).toBe(`127.0.0.1:${github.port}`);
  });

  it("resolves an allowlisted name itself and dials exactly the address it decided on", async () => {
    const tunnel = await connectVia("API.Model.Example.:443");
    expect(tunnel.status).toBe(200);
    expect(await getOver(tunnel.socket, "api.model.example", "/v1/models")).toMatchObject({ status: 200, body: "model GET /v1/models" });
    expect(resolved).toEqual(["api.model.example"]);
    expect(dialled).toEqual([{ address: MODEL_ADDRESS, port: 443 }]);
  });
});

describe("the egress proxy: refused before dialling", () => {
  it.each([
    ["the metadata address", "169.254.169.254:80", "link-local"],
    ["a private address", "10.0.0.1:443", "private"],
    ["a mapped IPv6 loopback", "[::ffff:127.0.0.1]:80", "loopback"],
    ["another loopback port", "127.0.0.1:6379", "loopback"],
    ["an allowed name resolving to loopback", "inward.cdn.example:443", "127.0.0.1 (loopback)"],
    ["an allowed name resolving to a private address", "lan.cdn.example:443", "192.168.1.1 (private)"],
    ["an allowed name resolving to the mapped metadata address", "metadata.cdn.example:443", "link-local"],
    ["a public name that is not allowlisted", "example.com:443", "AGENT_NETWORK_ALLOW"],
    ["an allowed name on another port", "api.model.example:22", "port 443 only"],
  ])("CONNECT to %s (%s): 403, logged, never dialled", async (_name, authority, why) => {
    const answer = await connectVia(authority);
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("AGENT_NETWORK_ALLOW");
    expect(answer.body).toContain(why);
    expect(answer.body.trim().split("\n")).toHaveLength(1);
    expect(dialled).toEqual([]);
    const host = authority
      .replace(/:\d+$/, "")
      .replace(/^\[|\]$/g, "")
      .toLowerCase();
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: "warn",
        fields: expect.objectContaining({ host, port: Number(authority.split(":").at(-1)), reason: expect.any(String) }),
      }),
    );
  });

  it("never looks up a name outside the allowlist", async () => {
    expect((await connectVia("exfiltrate-this.attacker.example:443")).status).toBe(403);
    expect(resolved).toEqual([]);
  });

  it("refuses plain HTTP to the metadata address and to a name resolving inward", async () => {
    const metadata = await proxiedGet("http://169.254.169.254/latest/meta-data/iam/security-credentials/");
    expect(metadata.status).toBe(403);
    expect(metadata.body).toContain("AGENT_NETWORK_ALLOW");
    expect((await proxiedGet("http://inward.cdn.example:443/")).status).toBe(403);
    expect(dialled).toEqual([]);
  });

  it("answers 400 to a request that is not for a proxy", async () => {
    expect((await proxiedGet("/relative")).status).toBe(400);
    expect(dialled).toEqual([]);
  });
});

describe("the egress proxy: pass-through and files", () => {
  it("pipes the loopback GitHub endpoint's socket to it, raw", async () => {
    expect(proxy.endpoints.passThrough).toEqual([{ host: "127.0.0.1", port: github.port, socket: "github-0.sock" }]);
    const socket = connect(join(proxy.endpoints.dir, "github-0.sock"));
    const answer = await getOver(socket, `127.0.0.1:${github.port}`, "/owner/repo.git/info/refs");
    expect(answer).toEqual({ status: 200, body: "github GET /owner/repo.git/info/refs" });
    expect(dialled).toEqual([{ address: "127.0.0.1", port: github.port }]);
  });

  it("keeps its sockets in a 0755 directory, usable by any user who can reach it", () => {
    expect(statSync(proxy.endpoints.dir).mode & 0o777).toBe(0o755);
    expect(statSync(proxyPath()).mode & 0o777).toBe(0o666);
    expect(statSync(join(proxy.endpoints.dir, "github-0.sock")).mode & 0o777).toBe(0o666);
  });
});

describe("the egress proxy: another user", () => {
  // The sandbox may run the agent under another uid than the app's (root dropping privileges).
  it.runIf(process.getuid?.() === 0)("lets an unprivileged user tunnel through the proxy socket", async () => {
    chmodSync(tmp, 0o711);
    const script = `const s = require("node:net").connect(${JSON.stringify(proxyPath())}, () => s.write("CONNECT 127.0.0.1:${github.port} HTTP/1.1\\r\\n\\r\\n")); s.once("data", (d) => { console.log(d.toString().split("\\r\\n")[0]); s.destroy(); }); s.on("error", (e) => console.log(e.code));`;
    const { stdout } = await promisify(execFile)("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script]);
    expect(stdout.trim()).toBe("HTTP/1.1 200 Connection Established");
  });
});

describe("the egress proxy: limits", () => {
  it("answers 431 to an oversized request head, closes idle and surplus connections, and removes its sockets on close", async () => {
    const dir = join(tmp, "limited");
    const { rules } = parseAllowList("");
    const limited = await startEgressProxy({
      dir,
      policy: egressPolicy({ baseUrl: "https://api.github.com", serverUrl: "https://github.com", networkAllow: rules }),
      log,
      connect: () => {
        throw new Error("nothing is dialled in this test");
      },
      limits: { maxHeaderBytes: 1024, idleMs: 300, maxConnections: 2 },
    });
    expect(limited.endpoints.passThrough).toEqual([]);
    const path = join(dir, limited.endpoints.proxySocket);
    const big = await new Promise<string>((resolve) => {
      const socket = connect(path, () => socket.write(`GET http://github.com/ HTTP/1.1\r\nhost: github.com\r\nx-big: ${"a".repeat(4000)}\r\n\r\n`));
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
      socket.on("close", () => resolve(text));
    });
    expect(big).toMatch(/^HTTP\/1\.1 431/);

    const idle = connect(path);
    let idleClosed = false;
    idle.on("close", () => (idleClosed = true));
    await waitFor("the idle connection to be closed", () => idleClosed);

    const opened: Socket[] = [];
    const closed = new Set<Socket>();
    for (let i = 0; i < 3; i++) {
      const socket = connect(path);
      socket.on("close", () => closed.add(socket));
      socket.on("error", () => undefined);
      opened.push(socket);
      await new Promise((resolve) => socket.once("connect", resolve));
    }
    await waitFor("the connection over the limit to be closed", () => closed.has(opened[2]!));
    expect(closed.has(opened[0]!)).toBe(false);
    for (const socket of opened) socket.destroy();

    await limited.close();
    expect(existsSync(path)).toBe(false);
  });
});
