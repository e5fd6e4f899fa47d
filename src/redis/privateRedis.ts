import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import { writePrivateFile } from "./privateFile.js";
import { removeRedisUrlFile, writeRedisUrlFile } from "./urlFile.js";

export interface PrivateRedis {
  /** redis://:PASSWORD@127.0.0.1:PORT: log it only through safeRedisUrl. */
  url: string;
  port: number;
  password: string;
  stop(): Promise<void>;
  /** For a process about to exit at once: sets the server's stop going (SIGTERM) and takes its password files away, without waiting. */
  stopAtExit(): void;
}

export interface PrivateRedisOptions {
  /** Directory for the append-only file; omit for a throw-away in-memory server. */
  dataDir?: string;
  port?: number;
  /** Reuse a password (a restart on the same files whose clients keep their URL); a new random one otherwise. */
  password?: string;
}

/** Written into the data directory, mode 0600: redis-server's settings, with its password. */
export const REDIS_CONF_FILE = "redis.conf";

/**
 * redis-server's keeper: a shell that starts it with the arguments it is given and stops it
 * (SIGTERM, so the append-only file is flushed) when its stdin, a pipe from the app, reaches its end.
 * The app closes the pipe to stop Redis; the kernel closes it when the app dies however it dies
 * (SIGKILL, a crash, a second Ctrl-C), so no redis-server outlives its app. The keeper exits with
 * redis-server, and with its status: 127 when there is no redis-server on PATH.
 * fd 3 keeps the pipe for the reader, since a background list's stdin is /dev/null.
 */
const KEEPER_SCRIPT = `exec 3<&0
redis-server "$@" 3<&- &
redis=$!
{ while read -r _ <&3; do :; done; kill -s TERM "$redis" 2>/dev/null; } &
reader=$!
exec 3<&-
wait "$redis"
status=$?
kill "$reader" 2>/dev/null
exit "$status"`;

/** The keeper's `$0`, how `ps -f` tells it from other shells. */
export const KEEPER_NAME = "escalation-redis";

/** A shell's exit status for a command it could not find. */
const COMMAND_NOT_FOUND = 127;

/** Asks the kernel for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Creates `dir` if needed and makes it 0700: it holds the password and the data only the app may read. */
function privateDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (error) {
    throw new ConfigError(
      `Could not make ${dir} private (mode 0700) for the private Redis's password: ${(error as Error).message}. Give the app's user ownership of DATA_DIR, or set DATA_DIR to a directory it owns.`,
      { cause: error },
    );
  }
}

/**
 * Starts a redis-server of our own on a free loopback port, so nobody's running Redis is touched.
 * Used by `npm start` and `npm run demo` when REDIS_URL is unset, and by the test suite.
 *
 * Agents run as the app's user and could dial loopback, so the server requires a password. It
 * reaches redis-server in a 0600 config file: on the command line any process could read it from
 * /proc/PID/cmdline.
 */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  const password = options.password ?? randomBytes(32).toString("base64url");
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  // Without a data directory the config file still needs a private home; it goes when the server does.
  const confDir = dataDir ?? mkdtempSync(join(tmpdir(), "escalation-redis-"));
  privateDirectory(confDir);
  const confPath = join(confDir, REDIS_CONF_FILE);
  writePrivateFile(confPath, `requirepass ${password}\n`);
  const url = `redis://:${password}@127.0.0.1:${port}`;
  // A gate's hash holds its ask as JSON, longer than Redis's default 64-byte limit for the compact
  // (listpack) encoding: with 1024 a parked gate costs about a third less (README, "Bringing your
  // own Redis"). The older ziplist name is the one Redis 6 knows too; Redis 7 reads it as
  // hash-max-listpack-value.
  const args = [confPath, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--protected-mode", "yes", "--hash-max-ziplist-value", "1024"];
  if (dataDir) {
    args.push("--dir", dataDir, "--appendonly", "yes", "--appendfsync", "everysec");
  } else {
    args.push("--appendonly", "no");
  }
  // A stopped server's password is of no use to anyone: its files go with it.
  const cleanUp = () => {
    if (dataDir) removeRedisUrlFile(dataDir);
    rmSync(dataDir ? confPath : confDir, { recursive: true, force: true });
  };
  let child: ChildProcess;
  try {
    // Detached: the keeper and redis-server lead a process group (and session) of their own, so a
    // terminal's Ctrl-C reaches the app alone, and the app stops Redis after its own shutdown.
    child = spawn("/bin/sh", ["-c", KEEPER_SCRIPT, KEEPER_NAME, ...args], { stdio: ["pipe", "pipe", "pipe"], detached: true });
  } catch (error) {
    cleanUp();
    throw missingRedis(error);
  }
  child.stdin?.on("error", () => undefined); // the keeper gone already: nothing left to tell
  const output: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", (code) => resolveExit(code)));
  // Closing the keeper's stdin is what stops redis-server: the app's exit does the same, however it dies.
  const stopNow = () => child.stdin?.destroy();
  const ready = new Promise<void>((resolveReady, fail) => {
    const timer = setTimeout(() => fail(new ConfigError(`redis-server did not start on port ${port} within 10s:\n${output.join("")}`)), 10_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      fail(missingRedis(error));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(
        code === COMMAND_NOT_FOUND
          ? missingRedis(output.join(""))
          : new ConfigError(`redis-server exited with code ${code} before it was ready:\n${output.join("")}`),
      );
    });
    child.stdout?.on("data", () => {
      if (output.join("").includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolveReady();
      }
    });
  });
  try {
    await ready;
  } catch (error) {
    stopNow();
    cleanUp();
    throw error;
  }
  if (dataDir) writeRedisUrlFile(dataDir, url);
  return {
    url,
    port,
    password,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        stopNow();
        // A stuck server must not hang shutdown: SIGKILL to its group after 5 s.
        const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      cleanUp();
    },
    stopAtExit() {
      stopNow();
      cleanUp();
    },
  };
}

/** Signals every process of `child`'s group (it leads one: spawned detached); quiet if it is gone. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // gone already
  }
}

function missingRedis(cause: unknown): ConfigError {
  return new ConfigError(
    "No redis-server on PATH and REDIS_URL is unset: install Redis (Debian: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL=redis://host:6379.",
    { cause },
  );
}
