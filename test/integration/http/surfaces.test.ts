import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { AppConfig } from "../../../src/config/env.js";
import { LoopEvents } from "../../../src/events.js";
import { GateStore } from "../../../src/gates/store.js";
import { registerHttp } from "../../../src/http/index.js";
import type { HttpHandler } from "../../../src/http/route.js";
import { Queues } from "../../../src/queue/queues.js";
import { freePort } from "../../../src/redis/privateRedis.js";
import type { Services } from "../../../src/services.js";
import { gateFixture, newGate } from "../../support/gates.js";

const TOKEN = "admin-token-for-tests-0123456789";

interface Surface {
  url: string;
  services: Services;
  close(): Promise<void>;
}

/** registerHttp on a plain node:http server (the handlers Probot's server would run), over real Redis. */
async function serve(redisUrl: string, config: Partial<AppConfig>, redisDown = false): Promise<Surface> {
  // With Redis down, fail commands at once instead of queueing them until the 2 s probe deadline.
  const commands = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: !redisDown });
  const producer = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1000 });
  commands.on("error", () => undefined);
  producer.on("error", () => undefined);
  const prefix = `http-${randomUUID().slice(0, 8)}`;
  const queues = new Queues(producer, prefix);
  const services = {
    config: { redisPrefix: prefix, ...config },
    store: new GateStore(commands, prefix),
    queues,
    log: pino({ level: "silent" }),
    events: new LoopEvents(() => undefined),
    sandbox: { mode: "bwrap", problem: undefined },
  } as unknown as Services;
  const handlers: HttpHandler[] = [];
  registerHttp(services, (h) => handlers.push(h));
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    for (const handler of handlers) if (await handler(req, res)) return;
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    services,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queues.close().catch(() => undefined);
      commands.disconnect();
      producer.disconnect();
    },
  };
}

let app: Surface;
const T0 = Date.now() - 600_000;

beforeAll(async () => {
  app = await serve(inject("redisUrl"), { adminToken: TOKEN });
  for (const gate of [
    gateFixture({ id: "301", repo: "acme/widgets", issue: 12, askedAt: T0, ask: { timeoutSeconds: 3600 } }),
    gateFixture({ id: "302", repo: "acme/api", issue: 4, askedAt: T0 + 1000, ask: { questions: [{ text: "<script>alert(1)</script> ok?" }] } }),
  ]) {
    await app.services.store.upsertIssue({ repo: gate.repo, issue: gate.issue, installationId: 1, title: `Issue ${gate.issue}`, body: "", url: "", assignees: [] });
    await app.services.store.openGate(newGate(gate));
  }
});
afterAll(async () => {
  await app?.close();
});

const bearer = { authorization: `Bearer ${TOKEN}` };

describe("/escalation/api/gates", () => {
  it("returns the open gates as JSON with the token as a Bearer header", async () => {
    const res = await fetch(`${app.url}/escalation/api/gates`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { gates: Array<{ id: string; title: string; questions: Array<{ text: string }> }>; counts: unknown };
    expect(body.gates.map((g) => g.id)).toEqual(["301", "302"]);
    expect(body.gates[0]!.title).toBe("Issue 12");
    expect(body.counts).toEqual({ open: 2, waiting: 1, overdue: 0, noTimeout: 1, partial: 0 });
  });

  it("accepts ?token= and filters by ?repo=", async () => {
    const res = await fetch(`${app.url}/escalation/api/gates?token=${TOKEN}&repo=acme%2Fapi`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { gates: Array<{ id: string }> }).gates.map((g) => g.id)).toEqual(["302"]);
  });

  it("refuses 401 without a token or with a wrong one, saying how to authenticate", async () => {
    for (const init of [{}, { headers: { authorization: "Bearer nope" } }, { headers: { authorization: `Basic ${TOKEN}` } }]) {
      const res = await fetch(`${app.url}/escalation/api/gates`, init);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="escalation"');
      expect(await res.json()).toHaveProperty("error");
    }
    expect((await fetch(`${app.url}/escalation/api/gates?token=${TOKEN.slice(1)}`)).status).toBe(401);
  });

  it("only answers GET and HEAD", async () => {
    const res = await fetch(`${app.url}/escalation/api/gates`, { method: "POST", headers: bearer });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("/escalation", () => {
  it("serves the page with a strict CSP, no referrer and every prompt escaped", async () => {
    const res = await fetch(`${app.url}/escalation?token=${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+'; style-src 'nonce-/);
    const page = await res.text();
    expect(page).toContain("Which database should the cache use?");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt; ok?");
    expect(page).not.toContain("<script>alert(1)");
    expect(page.indexOf('data-repo="acme/widgets"')).toBeLessThan(page.indexOf('data-repo="acme/api"'));
  });

  it("refuses 401 without the token", async () => {
    const res = await fetch(`${app.url}/escalation`);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("401 Unauthorized: A token is required");
  });

  it("is disabled (403) when ADMIN_TOKEN is unset", async () => {
    const off = await serve(inject("redisUrl"), {});
    try {
      for (const path of ["/escalation", "/escalation/api/gates"]) {
        const res = await fetch(`${off.url}${path}?token=${TOKEN}`);
        expect(res.status).toBe(403);
        expect(await res.text()).toContain("set ADMIN_TOKEN");
      }
    } finally {
      await off.close();
    }
  });
});

describe("/metrics", () => {
  it("exports the loop's counters and histograms from its events, and open gates from Redis", async () => {
    const { events } = app.services;
    const gate = gateFixture({ askedAt: 1_000_000 });
    events.notify("gate.opened", { gate });
    events.notify("gate.answered", { gate: { ...gate, state: "answered", answeredAt: 1_000_000 + 90_000 }, by: "maintainer", source: "human" });
    events.notify("gate.closed", { gate, state: "cancelled", reason: "closed" });
    events.notify("agent.started", { repo: gate.repo, issue: 12, round: 1, replyToSpawnMs: 420, resumedGate: gate });
    events.notify("agent.started", { repo: gate.repo, issue: 12, round: 0, replyToSpawnMs: 3000 });
    events.notify("agent.exited", { repo: gate.repo, issue: 12, round: 1, outcome: "success", durationMs: 5 });
    events.notify("agent.exited", { repo: gate.repo, issue: 12, round: 2, outcome: "timeout", durationMs: 5 });
    events.notify("webhook.delivery", { event: "issue_comment", result: "queued" });
    events.notify("webhook.delivery", { event: "issue_comment", result: "queued" });
    events.notify("webhook.delivery", { event: "issues", result: "ignored" });

    const res = await fetch(`${app.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const line of [
      "escalation_open_gates 2",
      "escalation_redis_up 1",
      "escalation_gates_opened_total 1",
      'escalation_answers_total{source="human"} 1',
      'escalation_answers_total{source="default"} 0',
      'escalation_ask_to_answer_seconds_bucket{le="60",source="human"} 0',
      'escalation_ask_to_answer_seconds_bucket{le="300",source="human"} 1',
      'escalation_ask_to_answer_seconds_sum{source="human"} 90',
      'escalation_answer_to_spawn_seconds_bucket{le="0.5",trigger="answer"} 1',
      'escalation_answer_to_spawn_seconds_count{trigger="dispatch"} 1',
      'escalation_answer_to_spawn_seconds_sum{trigger="dispatch"} 3',
      'escalation_spawn_outcomes_total{outcome="success"} 1',
      'escalation_spawn_outcomes_total{outcome="timeout"} 1',
      'escalation_spawn_outcomes_total{outcome="failure"} 0',
      'escalation_gates_closed_total{state="cancelled"} 1',
      'escalation_webhook_deliveries_total{event="issue_comment",result="queued"} 2',
      'escalation_webhook_deliveries_total{event="issues",result="ignored"} 1',
      'escalation_queue_jobs{queue="inbound",state="waiting"} 0',
      'escalation_queue_jobs{queue="spawn",state="failed"} 0',
    ]) {
      expect(text.split("\n")).toContain(line);
    }
    expect(text).toMatch(/^escalation_oldest_open_gate_age_seconds (59\d|6\d\d)(\.\d+)?$/m);
  });
});

describe("/healthz", () => {
  it("is 200 with every queue's job counts when Redis answers", async () => {
    const res = await fetch(`${app.url}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; redis: string; queues: Record<string, Record<string, number>> };
    expect(body.ok).toBe(true);
    expect(body.redis).toBe("ok");
    expect(body.queues.inbound).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    expect(Object.keys(body.queues)).toEqual(expect.arrayContaining(["inbound", "spawn", "feedback"]));
  });

  it("is 503 naming the failure when Redis is unreachable", async () => {
    const down = await serve(`redis://127.0.0.1:${await freePort()}`, {}, true);
    try {
      const res = await fetch(`${down.url}/healthz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { ok: boolean; error: string; redis: string };
      expect(body.ok).toBe(false);
      expect(body.redis).not.toBe("ok");
      expect(body.error).toBeTruthy();
      const metrics = await (await fetch(`${down.url}/metrics`)).text();
      expect(metrics.split("\n")).toContain("escalation_redis_up 0");
    } finally {
      await down.close();
    }
  });
});
