import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp } from "../../src/app/startApp.js";
import { loadConfig } from "../../src/config/env.js";
import { GitHubSimulator } from "../../tools/simulator/index.js";
import { WEBHOOK_SECRET, waitFor } from "../support/harness.js";

const openSockets = () => process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length;

describe("startApp on a port already in use", () => {
  let sim: GitHubSimulator;
  const taken = createServer();
  beforeAll(async () => {
    sim = await GitHubSimulator.start({ webhookSecret: WEBHOOK_SECRET });
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    await sim.stop();
  });

  it("fails naming PORT, and leaves none of its Redis connections open", async () => {
    const port = (taken.address() as { port: number }).port;
    const config = loadConfig({
      ...sim.appEnv(),
      PORT: String(port),
      HOST: "127.0.0.1",
      REDIS_URL: process.env.REDIS_URL,
      REDIS_PREFIX: `t${randomBytes(5).toString("hex")}`,
    });
    const before = openSockets();
    const started = startApp({
      config: { ...config, redisUrl: config.redisUrl! },
      log: pino({ level: "silent" }),
      octokit: { throttle: false, retry: false },
      workers: false,
    });
    await expect(started).rejects.toMatchObject({
      code: "EADDRINUSE",
      message: `Port ${port} is already in use. You can define the PORT environment variable to use a different port.`,
    });
    // A closed socket's handle goes a moment after its close; one left open keeps the count up until the deadline.
    await waitFor("the start's sockets closed", () => openSockets() <= before, 5000);
    expect(openSockets()).toBeLessThanOrEqual(before);
  });
});
