import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

/** A command as MONITOR reported it: its name in lower case, its arguments, and whether a Lua script ran it. */
export interface SeenCommand {
  name: string;
  args: string[];
  inScript: boolean;
}

/**
 * A connection in MONITOR mode, as ioredis's `monitor()` opens it. That one fails now and then on a
 * busy server: ioredis takes the mode a tick after MONITOR's OK, so a line Redis sends right behind
 * the OK (any client's command) is read as a reply nobody waited for ("Command queue state error")
 * and rejects it. Such a line comes before anything a test watches, so it is let go here.
 */
export function startMonitor(redis: Redis): Promise<Redis> {
  const monitor = redis.duplicate({ monitor: true, lazyConnect: false });
  return new Promise((resolve, reject) => {
    monitor.on("error", (error: Error) => {
      if (error.message.startsWith("Command queue state error")) return;
      monitor.disconnect();
      reject(error);
    });
    monitor.once("monitoring", () => resolve(monitor));
  });
}

/**
 * The commands Redis at `redisUrl` ran on keys of the namespace `prefix` while `act` ran, in order,
 * as MONITOR saw them (every client's: filter by what a test is about).
 */
export async function commandsDuring(redisUrl: string, prefix: string, act: () => Promise<unknown>): Promise<SeenCommand[]> {
  const watcher = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const marker = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const end = `end-${randomUUID()}`;
  const seen: SeenCommand[] = [];
  try {
    const monitor = await startMonitor(watcher);
    const ended = new Promise<void>((resolve) => {
      monitor.on("monitor", (_time: string, args: string[], source: string) => {
        const [name = "", ...rest] = args;
        if (name.toLowerCase() === "echo" && rest[0] === end) resolve();
        else if (rest.some((a) => a.startsWith(`${prefix}:`))) seen.push({ name: name.toLowerCase(), args: rest, inScript: source === "lua" });
      });
    });
    try {
      await act();
      // MONITOR reports commands in the order Redis ran them: once this one is seen, every one before it was.
      await marker.echo(end);
      await ended;
      return seen;
    } finally {
      monitor.disconnect();
    }
  } finally {
    watcher.disconnect();
    marker.disconnect();
  }
}
