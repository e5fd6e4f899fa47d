import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { startMonitor } from "../../support/redisMonitor.js";

let flood: Redis;
let base: Redis;
beforeAll(() => {
  flood = new Redis(inject("redisUrl"));
  base = new Redis(inject("redisUrl"));
});
afterAll(() => {
  flood.disconnect();
  base.disconnect();
});

// ioredis's own monitor() failed 37 times in 40 under this flood ("Command queue state error").
it("the tests' MONITOR opens while other clients keep the server busy, and reports their commands", async () => {
  let flooding = true;
  const busy = (async () => {
    while (flooding) await Promise.all(Array.from({ length: 50 }, () => flood.get("monitor-flood")));
  })();
  try {
    for (let i = 0; i < 20; i++) {
      const monitor = await startMonitor(base);
      // Other tests share the server: the flood's command is looked for among theirs.
      const seen = new Promise<string[]>((resolve) =>
        monitor.on("monitor", (_time: string, args: string[]) => {
          if (args.includes("monitor-flood")) resolve(args);
        }),
      );
      expect(await seen).toEqual(["get", "monitor-flood"]);
      monitor.disconnect();
    }
  } finally {
    flooding = false;
    await busy;
  }
});
