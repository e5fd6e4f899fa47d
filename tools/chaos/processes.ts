import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { projectRoot } from "../../src/config/projectRoot.js";
import { startPrivateRedis, type PrivateRedis } from "../../src/redis/privateRedis.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `node dist/main.js` as a child process: the app exactly as `npm start` runs it. */
export class AppProcess {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #running = true;

  private constructor(
    readonly name: string,
    readonly port: number,
    readonly child: ChildProcess,
    readonly startedAt: number,
  ) {
    this.exited = new Promise((done) => child.once("exit", (code, signal) => done({ code, signal })));
    void this.exited.then(() => (this.#running = false));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Starts the app and waits until /healthz answers 200 (Redis and every queue reachable). */
  static async start(
    name: string,
    port: number,
    env: Record<string, string>,
    logFile: string,
    onSpawn?: (pid: number) => void,
    readyTimeoutMs = 60_000,
  ): Promise<AppProcess> {
    const fd = openSync(logFile, "a");
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [resolve(projectRoot, "dist/main.js")], { env, stdio: ["ignore", fd, fd] });
    } finally {
      closeSync(fd);
    }
    const app = new AppProcess(name, port, child, Date.now());
    if (child.pid !== undefined) onSpawn?.(child.pid);
    const deadline = Date.now() + readyTimeoutMs;
    while (Date.now() < deadline) {
      if (!app.running) throw new Error(`${name} exited before it was ready; see ${logFile}`);
      if ((await httpStatus(`${app.url}/healthz`)) === 200) return app;
      await sleep(50);
    }
    app.child.kill("SIGKILL");
    throw new Error(`${name} was not ready within ${readyTimeoutMs} ms; see ${logFile}`);
  }

  /** SIGKILL: a crash, an OOM kill, a node lost. */
  async kill(): Promise<void> {
    if (this.running) this.child.kill("SIGKILL");
    await this.exited;
  }

  /** SIGTERM: a deploy. Falls back to SIGKILL if the app does not exit in `timeoutMs`. */
  async terminate(timeoutMs = 30_000): Promise<void> {
    if (!this.running) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }
}

function httpStatus(url: string): Promise<number | undefined> {
  return new Promise((done) => {
    const req = request(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      done(res.statusCode);
    });
    req.on("error", () => done(undefined));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

/** A private redis-server with append-only persistence that can be stopped and started again on the same files. */
export class RedisServer {
  #server: PrivateRedis | undefined;

  private constructor(
    readonly dataDir: string,
    readonly port: number,
    readonly url: string,
    private readonly password: string,
    server: PrivateRedis,
  ) {
    this.#server = server;
  }

  static async start(dataDir: string): Promise<RedisServer> {
    const server = await startPrivateRedis({ dataDir });
    return new RedisServer(dataDir, server.port, server.url, server.password, server);
  }

  /** SIGTERM (redis-server flushes its append-only file and exits). */
  async stop(): Promise<void> {
    await this.#server?.stop();
    this.#server = undefined;
  }

  /** Starts again on the same port, directory and password: the data comes back from the append-only file, the app's URL still works. */
  async start(): Promise<void> {
    if (this.#server) return;
    this.#server = await startPrivateRedis({ dataDir: this.dataDir, port: this.port, password: this.password });
  }
}

/**
 * The load balancer in front of the replicas: each webhook goes to the next replica in turn, and to
 * another when that one refuses the connection; with none up it answers 502, as a real one would.
 */
export class WebhookProxy {
  #next = 0;
  private constructor(
    private readonly server: Server,
    private readonly targets: () => string[],
  ) {}

  static async start(targets: () => string[]): Promise<WebhookProxy> {
    const server = createServer();
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const proxy = new WebhookProxy(server, targets);
    server.on("request", (req, res) => void proxy.handle(req, res));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/github/webhooks`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const targets = this.targets();
    const first = this.#next++;
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(first + i) % targets.length]!;
      const answer = await forward(`${target}/api/github/webhooks`, req, body);
      if (answer) {
        res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
        return;
      }
    }
    res.writeHead(502, { "content-type": "text/plain" }).end("no replica reachable");
  }

  async close(): Promise<void> {
    await new Promise<void>((done) => {
      this.server.close(() => done());
      this.server.closeAllConnections();
    });
  }
}

/** Forwards one webhook; undefined when the replica could not be reached (so the next one is tried). */
function forward(url: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; body: string } | undefined> {
  return new Promise((done) => {
    const headers = { ...req.headers, host: new URL(url).host, "content-length": String(body.length) };
    const out = request(url, { method: req.method, headers, agent: false, timeout: 10_000 }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => done({ status: res.statusCode ?? 502, body: Buffer.concat(parts).toString() }));
      res.on("error", () => done({ status: 502, body: "replica hung up" }));
    });
    out.on("error", (error: NodeJS.ErrnoException) => {
      // Refused: the replica is down, try another. Anything later (it died mid-request): 502.
      done(error.code === "ECONNREFUSED" ? undefined : { status: 502, body: error.message });
    });
    out.on("timeout", () => out.destroy(new Error("replica timed out")));
    out.end(body);
  });
}
