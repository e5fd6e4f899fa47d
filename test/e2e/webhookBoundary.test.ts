import { readFileSync } from "node:fs";
import { Webhooks } from "@octokit/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../../src/redis/privateRedis.js";
import { REPO, WEBHOOK_SECRET, startLoop, waitFor, type Loop } from "../support/harness.js";
import { deliveriesHeld } from "../support/inboundRecords.js";

/** A real issue_comment.created payload (from @octokit/webhooks-examples), aimed at our repository. */
function payload(): string {
  const examples = JSON.parse(readFileSync("node_modules/@octokit/webhooks-examples/api.github.com/index.json", "utf8")) as Array<{
    name: string;
    examples: Array<Record<string, unknown>>;
  }>;
  const example = structuredClone(examples.find((e) => e.name === "issue_comment")!.examples.find((x) => x.action === "created")!);
  const [owner, name] = REPO.split("/");
  (example.repository as Record<string, unknown>).full_name = REPO;
  (example.repository as Record<string, unknown>).name = name;
  ((example.repository as Record<string, unknown>).owner as Record<string, unknown>).login = owner;
  example.installation = { id: 1, node_id: "x" };
  return JSON.stringify(example);
}

/** The `X-Hub-Signature-256` GitHub would send for `body`. */
const sign = (body: string, secret = WEBHOOK_SECRET) => new Webhooks({ secret }).sign(body);

async function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(`${url}/api/github/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": crypto.randomUUID(), ...headers },
    body,
  });
  await response.text();
  return response.status;
}

describe("the webhook boundary", () => {
  let loop: Loop;
  let redis: PrivateRedis;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    loop = await startLoop({ REDIS_URL: redis.url, RECONCILE_INTERVAL: "off" });
  });
  afterAll(async () => {
    await loop.close().catch(() => undefined);
    await redis.stop();
  });

  it("accepts a correctly signed delivery", async () => {
    const body = payload();
    expect(await post(loop.app.url, body, { "x-hub-signature-256": await sign(body) })).toBe(200);
  });

  it.each([
    ["missing", async () => ({})],
    ["wrong", async () => ({ "x-hub-signature-256": await sign("something else") })],
    ["signed with a stale secret", async () => ({ "x-hub-signature-256": await sign(payload(), "the-old-secret") })],
    ["malformed", async () => ({ "x-hub-signature-256": "sha256=not-hex" })],
  ])("rejects a %s signature with 4xx and records nothing", async (_name, headers) => {
    const body = payload();
    const before = await deliveriesHeld(loop.app.services.queues.inbound);
    const status = await post(loop.app.url, body, await headers());
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(await deliveriesHeld(loop.app.services.queues.inbound)).toBe(before);
  });

  it("rejects a body altered after signing", async () => {
    const body = payload();
    const signature = await sign(body);
    const altered = body.replace('"created"', '"deleted"');
    const status = await post(loop.app.url, altered, { "x-hub-signature-256": signature });
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
  });

  it("answers 5xx when Redis is unreachable, so GitHub shows the delivery failed and can redeliver it", async () => {
    await redis.stop();
    await waitFor("the app to see Redis gone (its health check fails)", async () => (await fetch(`${loop.app.url}/healthz`)).status === 503);
    const body = payload().replace("You are totally right!", "/agent");
    const started = Date.now();
    const status = await post(loop.app.url, body, { "x-hub-signature-256": await sign(body) });
    expect(status).toBeGreaterThanOrEqual(500);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
