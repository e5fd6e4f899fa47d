import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { writePrivateFile } from "./privateFile.js";

/**
 * DATA_DIR/redis.url: the URL of the app's private Redis, password included, for the operator
 * commands (`escalate status`, `answer`, `reconcile`), since its port and password change at every
 * start. One line, mode 0600; written once the server is ready, removed when it stops.
 */
export const REDIS_URL_FILE = "redis.url";

export function redisUrlPath(dataDir: string): string {
  return join(resolve(dataDir), REDIS_URL_FILE);
}

export function writeRedisUrlFile(dataDir: string, url: string): void {
  writePrivateFile(redisUrlPath(dataDir), `${url}\n`);
}

export function removeRedisUrlFile(dataDir: string): void {
  rmSync(redisUrlPath(dataDir), { force: true });
}

/**
 * The URL in DATA_DIR/redis.url; undefined when there is no such file (no private Redis has run
 * there). A file that cannot be read, or holds anything but a Redis URL, is thrown.
 */
export function readRedisUrlFile(dataDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(redisUrlPath(dataDir), "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (!/^rediss?:\/\/\S+$/.test(text)) throw new Error("it does not hold a redis:// URL");
  return text;
}
