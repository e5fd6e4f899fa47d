import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningApp } from "../../src/app/startApp.js";
import { loadConfig } from "../../src/config/env.js";
import { GitHubSimulator } from "../../tools/simulator/index.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { REPO, startOnFreePort, waitFor, WEBHOOK_SECRET } from "../support/harness.js";

type Line = Record<string, unknown>;

/** The app's JSON log lines, as a deployment's log collector would get them. */
function capture(level: string): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Line);
      done();
    },
  });
  return { log: pino({ level }, stream), lines };
}

describe("the access log of webhook deliveries", () => {
  let sim: GitHubSimulator;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    sim = await GitHubSimulator.start({ webhookSecret: WEBHOOK_SECRET });
    sim.addRepo(REPO);
    sim.addUser("maintainer");
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await sim.stop();
  });

  async function boot(level: string) {
    const { log, lines } = capture(level);
    const config = loadConfig({
      ...sim.appEnv(),
      PORT: String(await freePort()),
      HOST: "127.0.0.1",
      REDIS_URL: process.env.REDIS_URL,
      REDIS_PREFIX: `t${randomBytes(5).toString("hex")}`,
    });
    const app = await startOnFreePort({ config: { ...config, redisUrl: config.redisUrl! }, log, octokit: { throttle: false, retry: false }, workers: false });
    apps.push(app);
    sim.setWebhookUrl(`${app.url}/api/github/webhooks`);
    return lines;
  }

  const accessLines = (lines: Line[]) => lines.filter((l) => l.name === "http");

  it("is one debug line per delivery with method, path, status, delivery id and event, not the headers", async () => {
    const lines = await boot("debug");
    sim.createIssue(REPO, { title: "logged", author: "maintainer" });
    await sim.whenDelivered();
    const delivery = sim.deliveries.at(-1)!;
    const line = await waitFor("the access log line", () => accessLines(lines).find((l) => l.delivery === delivery.id));
    expect(line).toMatchObject({ level: 20, method: "POST", path: "/api/github/webhooks", status: 200, event: "issues" });
    expect(line.ms).toEqual(expect.any(Number));
    expect(JSON.stringify(line)).not.toContain("x-hub-signature");
    expect(line).not.toHaveProperty("req");
  });

  it("is not written at the info level", async () => {
    const lines = await boot("info");
    sim.createIssue(REPO, { title: "not logged", author: "maintainer" });
    await sim.whenDelivered();
    expect(sim.deliveries.at(-1)).toMatchObject({ event: "issues", status: 200 });
    expect(lines.some((l) => String(l.msg).startsWith("Listening"))).toBe(true); // the app does log at info
    expect(accessLines(lines)).toEqual([]);
  });
});
