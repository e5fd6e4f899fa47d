import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { KEEPER_NAME, REDIS_CONF_FILE, startPrivateRedis, type PrivateRedis } from "../../../src/redis/privateRedis.js";
import { REDIS_URL_FILE } from "../../../src/redis/urlFile.js";

/** Every spawn's file and arguments, as the process was started. */
const spawned = vi.hoisted(() => [] as [file: string, args: readonly string[]][]);
vi.mock("node:child_process", async (original) => {
  const real = await original<typeof import("node:child_process")>();
  const spawn = ((file: string, args: readonly string[], ...rest: unknown[]) => {
    spawned.push([file, args]);
    return (real.spawn as (...a: unknown[]) => unknown)(file, args, ...rest);
  }) as typeof real.spawn;
  return { ...real, spawn };
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe("the app's private redis-server", () => {
  let server: PrivateRedis;
  let dataDir: string;
  const clients: Redis[] = [];
  const client = (url: string) => {
    // No ready check: it would run INFO, which a refused client cannot, and hide the reply behind "Connection is closed".
    const redis = new Redis(url, { lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on("error", () => undefined);
    clients.push(redis);
    return redis;
  };

  beforeAll(async () => {
    dataDir = join(mkdtempSync(join(tmpdir(), "esc-redisauth-")), "data");
    server = await startPrivateRedis({ dataDir });
  });
  afterAll(async () => {
    for (const redis of clients) redis.disconnect();
    await server?.stop();
  });

  it("refuses a connection without the password (NOAUTH)", async () => {
    const anonymous = client(`redis://127.0.0.1:${server.port}`);
    await anonymous.connect();
    await expect(anonymous.set("forged", "answer")).rejects.toThrow(/NOAUTH/);
  });

  it("refuses a wrong password", async () => {
    const guesser = client(`redis://127.0.0.1:${server.port}`);
    await guesser.connect();
    await expect(guesser.auth("wrong")).rejects.toThrow(/WRONGPASS|invalid password/);
    await expect(guesser.get("anything")).rejects.toThrow(/NOAUTH/);
  });

  it("serves a client with the URL it hands out", async () => {
    expect(server.password.length).toBeGreaterThanOrEqual(43); // 32 random bytes, base64url
    expect(server.url).toBe(`redis://:${server.password}@127.0.0.1:${server.port}`);
    const app = client(server.url);
    await app.connect();
    expect(await app.ping()).toBe("PONG");
  });

  it("keeps DATA_DIR at 0700 and its password files at 0600", () => {
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, REDIS_CONF_FILE))).toBe(0o600);
    expect(readFileSync(join(dataDir, REDIS_CONF_FILE), "utf8")).toContain(`requirepass ${server.password}`);
    expect(mode(join(dataDir, REDIS_URL_FILE))).toBe(0o600);
    expect(readFileSync(join(dataDir, REDIS_URL_FILE), "utf8").trim()).toBe(server.url);
  });

  it("does not put the password on redis-server's command line: it reads it from the config file", async () => {
    // redis-server rewrites its /proc/PID/cmdline to a title once running, so the arguments it was
    // started with are checked where they are made, and the running process's cmdline as well.
    // redis-server is started by its keeper shell, with the arguments given to the shell.
    const redisSpawns = spawned.filter(([file, args]) => file === "/bin/sh" && args.includes(KEEPER_NAME));
    expect(redisSpawns.length).toBeGreaterThan(0);
    for (const [, args] of redisSpawns) expect(JSON.stringify(args)).not.toContain(server.password);
    const probe = client(server.url);
    await probe.connect();
    const info = await probe.info("server");
    expect(/config_file:(\S+)/.exec(info)![1]).toBe(join(dataDir, REDIS_CONF_FILE));
    const pid = Number(/process_id:(\d+)/.exec(info)![1]);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    expect(cmdline).toContain(`127.0.0.1:${server.port}`); // the right process
    expect(cmdline).not.toContain(server.password);
  });

  it("tightens an existing DATA_DIR and comes back on the same files with the same password", async () => {
    const port = server.port;
    const password = server.password;
    await server.stop();
    chmodSync(dataDir, 0o755);
    server = await startPrivateRedis({ dataDir, port, password });
    expect(mode(dataDir)).toBe(0o700);
    const again = client(server.url);
    await again.connect();
    expect(await again.ping()).toBe("PONG");
  });

  it("says how to install Redis when there is no redis-server on PATH, and leaves no password file", async () => {
    const dir = join(dataDir, "none");
    const path = process.env.PATH;
    process.env.PATH = join(dataDir, "empty-bin");
    try {
      await expect(startPrivateRedis({ dataDir: dir })).rejects.toThrow(/No redis-server on PATH and REDIS_URL is unset: install Redis/);
    } finally {
      process.env.PATH = path;
    }
    expect(existsSync(join(dir, REDIS_CONF_FILE))).toBe(false);
  });

  it("takes its password files away when it stops", async () => {
    const stopped = await startPrivateRedis({ dataDir: join(dataDir, "other") });
    expect(existsSync(join(dataDir, "other", REDIS_CONF_FILE))).toBe(true);
    expect(existsSync(join(dataDir, "other", REDIS_URL_FILE))).toBe(true);
    await stopped.stop();
    expect(existsSync(join(dataDir, "other", REDIS_CONF_FILE))).toBe(false);
    expect(existsSync(join(dataDir, "other", REDIS_URL_FILE))).toBe(false);
  });
});
