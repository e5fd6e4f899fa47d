import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/env.js";
import { GitHubSimulator } from "../../../tools/simulator/index.js";
import { freePort } from "../../../src/redis/privateRedis.js";
import { startOnFreePort } from "../../support/harness.js";

let sim: GitHubSimulator;
let tmp: string;

beforeAll(async () => {
  sim = await GitHubSimulator.start({ webhookSecret: "s" });
  tmp = mkdtempSync(join(tmpdir(), "egress-app-"));
});

afterAll(async () => {
  await sim?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

async function start(egress: boolean, dataDir: string) {
  const config = loadConfig({
    ...sim.appEnv(),
    PORT: String(await freePort()),
    HOST: "127.0.0.1",
    REDIS_URL: process.env.REDIS_URL,
    REDIS_PREFIX: `t${randomBytes(5).toString("hex")}`,
    DATA_DIR: dataDir,
    AGENT_NETWORK_ALLOW: "api.model.example",
    RECONCILE_INTERVAL: "off",
  });
  return startOnFreePort({
    config: { ...config, redisUrl: config.redisUrl! },
    log: pino({ level: "silent" }),
    octokit: { throttle: false, retry: false },
    workers: false,
    egress,
  });
}

/** The status line the proxy answers a CONNECT with. */
function connectStatus(socketPath: string, authority: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method: "CONNECT", path: authority });
    req.on("connect", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the app's egress proxy", () => {
  it("starts with the app under DATA_DIR/egress, reaches the configured GitHub, refuses the rest, and goes with the app", async () => {
    const dataDir = join(tmp, "data");
    const app = await start(true, dataDir);
    let closed = false;
    try {
      const egress = app.egress!;
      const port = Number(sim.host.split(":")[1]);
      expect(egress).toEqual({ dir: join(dataDir, "egress"), proxySocket: "proxy.sock", passThrough: [{ host: "127.0.0.1", port, socket: "github-0.sock" }] });
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(egress.dir).mode & 0o777).toBe(0o755);
      const socketPath = join(egress.dir, egress.proxySocket);
      expect(await connectStatus(socketPath, sim.host)).toBe(200);
      // Loopback, not GitHub: refused at the decision (and harmless if it ever were dialled).
      expect(await connectStatus(socketPath, "127.0.0.2:65000")).toBe(403);
      await app.close();
      closed = true;
      expect(existsSync(socketPath)).toBe(false);
      expect(existsSync(join(egress.dir, "github-0.sock"))).toBe(false);
    } finally {
      if (!closed) await app.close();
    }
  });

  it("is not started unless asked for", async () => {
    const dataDir = join(tmp, "off");
    const app = await start(false, dataDir);
    try {
      expect(app.egress).toBeUndefined();
      expect(existsSync(join(dataDir, "egress"))).toBe(false);
    } finally {
      await app.close();
    }
  });
});
