import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { AppConfig } from "../../../src/config/appConfig.js";
import { LoopEvents } from "../../../src/events.js";
import { registerHttp } from "../../../src/http/index.js";
import { SESSION_COOKIE, SESSION_SECONDS, SessionKey } from "../../../src/http/session.js";
import type { HttpHandler } from "../../../src/http/route.js";
import { QUEUES } from "../../../src/queueNames.js";
import { Queues } from "../../../src/queue/queues.js";
import { freePort } from "../../../src/redis/privateRedis.js";
import type { Services } from "../../../src/services/services.js";
import { openStores } from "../../../src/store/stores.js";
import { gateFixture, newGate } from "../../support/gates.js";
import { waitFor } from "../../support/harness.js";

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
    ...openStores(commands, prefix),
    queues,
    log: pino({ level: "silent" }),
    events: new LoopEvents(() => undefined),
    sandbox: { mode: "bwrap", problem: undefined },
  } as unknown as Services;
  const handlers: HttpHandler[] = [];
  registerHttp(services, (h) => handlers.push(h));
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    for (const handler of handlers) if (await handler(req, res)) return;
    res.writeHead(404).end();
  };
  // As before, a handler's rejection stays unhandled, and vitest fails the run on it.
  const server: Server = createServer((req, res) => void serve(req, res));
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
    await app.services.issues.upsertIssue({
      repo: gate.repo,
      issue: gate.issue,
      installationId: 1,
      title: `Issue ${gate.issue}`,
      body: "",
      url: "",
      assignees: [],
    });
    await app.services.gates.openGate(newGate(gate));
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

  it("filters by ?repo=", async () => {
    const res = await fetch(`${app.url}/escalation/api/gates?repo=acme%2Fapi`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { gates: Array<{ id: string }> }).gates.map((g) => g.id)).toEqual(["302"]);
  });

  it("refuses a ?token= (400) even when it is right, saying to send the header", async () => {
    for (const init of [{}, { headers: bearer }]) {
      const res = await fetch(`${app.url}/escalation/api/gates?token=${TOKEN}&repo=acme%2Fapi`, init);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(
        /^A token in the URL \(\?token=\) is not accepted: .* Send Authorization: Bearer <ADMIN_TOKEN>/,
      );
    }
  });

  it("refuses 401 JSON without a token or with a wrong one, saying what to send", async () => {
    for (const init of [
      {},
      { headers: { authorization: "Bearer nope" } },
      { headers: { authorization: `Basic ${TOKEN}` } },
      { headers: { cookie: `${SESSION_COOKIE}=${TOKEN}` } },
    ] as RequestInit[]) {
      const res = await fetch(`${app.url}/escalation/api/gates`, init);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="escalation"');
      expect(((await res.json()) as { error: string }).error).toMatch(/Authorization: Bearer <ADMIN_TOKEN>|sign in again at \/login/);
    }
  });

  it("only answers GET and HEAD", async () => {
    const res = await fetch(`${app.url}/escalation/api/gates`, { method: "POST", headers: bearer });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("/escalation", () => {
  it("serves the page with a strict CSP, no referrer and every prompt escaped", async () => {
    const res = await fetch(`${app.url}/escalation`, { headers: bearer });
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

  it("sends a browser without a session to the login form, coming back to the view it asked for", async () => {
    for (const cookie of [undefined, `${SESSION_COOKIE}=forged`]) {
      const res = await fetch(`${app.url}/escalation?by=answerer`, { redirect: "manual", headers: cookie ? { cookie } : {} });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/login?next=%2Fescalation%3Fby%3Danswerer");
    }
    const wrong = await fetch(`${app.url}/escalation`, { redirect: "manual", headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("401 Unauthorized: Wrong token");
    const inUrl = await fetch(`${app.url}/escalation?token=${TOKEN}`, { redirect: "manual" });
    expect(inUrl.status).toBe(400);
    expect(await inUrl.text()).toMatch(/^400 Bad Request: A token in the URL \(\?token=\) is not accepted.*or sign in at \/login in a browser/);
  });

  it("is disabled (403) when ADMIN_TOKEN is unset", async () => {
    const off = await serve(inject("redisUrl"), {});
    try {
      for (const path of ["/escalation", "/escalation/api/gates"]) {
        const res = await fetch(`${off.url}${path}`, { headers: bearer });
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
    events.notify("agent.started", {
      repo: gate.repo,
      issue: 12,
      round: 1,
      replyToSpawnMs: 420,
      resumedGate: { ...gate, answers: [{ question: 0, text: "SQLite", by: "maintainer", at: 1, source: "human" }] },
    });
    events.notify("agent.started", {
      repo: gate.repo,
      issue: 13,
      round: 1,
      replyToSpawnMs: 80,
      resumedGate: { ...gate, answers: [{ question: 0, text: "SQLite", by: "escalation", at: 2, source: "default" }] },
    });
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
      'escalation_trigger_to_spawn_seconds_bucket{le="0.5",trigger="answer"} 1',
      'escalation_trigger_to_spawn_seconds_count{trigger="default"} 1',
      'escalation_trigger_to_spawn_seconds_count{trigger="dispatch"} 1',
      'escalation_trigger_to_spawn_seconds_sum{trigger="dispatch"} 3',
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
    expect(text).not.toContain("answer_to_spawn");
    // prom-client's process metrics, under their standard names.
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it("exports the runners seen and the rounds each runs, from the spawn queue's workers and active jobs", async () => {
    const connection = new Redis(inject("redisUrl"), { maxRetriesPerRequest: null });
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const runner = new Worker(QUEUES.spawn, () => released, { connection, prefix: app.services.config.redisPrefix, concurrency: 2, name: "runner-a" });
    const lines = async () => (await (await fetch(`${app.url}/metrics`)).text()).split("\n");
    try {
      for (const id of ["round-1", "round-2"]) await app.services.queues.spawn.add("round", {} as never, { jobId: id });
      await waitFor("both rounds running", async () => (await app.services.queues.spawn.getActiveCount()) === 2);
      expect(await lines()).toEqual(expect.arrayContaining(["escalation_runners 1", 'escalation_rounds_running{runner="runner-a"} 2']));
      release();
      await waitFor("both rounds ended", async () => (await app.services.queues.spawn.getCompletedCount()) === 2);
      await runner.close();
      // Gone, but seen within the minute: it still counts, running nothing.
      expect(await lines()).toEqual(expect.arrayContaining(["escalation_runners 1", 'escalation_rounds_running{runner="runner-a"} 0']));
    } finally {
      release();
      await runner.close();
      connection.disconnect();
    }
  });

  it("is open without METRICS_TOKEN, and needs it as a Bearer token when set", async () => {
    expect((await fetch(`${app.url}/metrics`)).status).toBe(200);
    const METRICS = "metrics-token-for-tests-0123456789";
    const locked = await serve(inject("redisUrl"), { metricsToken: METRICS });
    try {
      for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
        const res = await fetch(`${locked.url}/metrics`, { headers });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="escalation"');
        expect(await res.text()).toContain("/metrics needs Authorization: Bearer <METRICS_TOKEN>");
      }
      const inUrl = await fetch(`${locked.url}/metrics?token=${METRICS}`);
      expect(inUrl.status).toBe(400);
      expect(await inUrl.text()).toContain("Send Authorization: Bearer <METRICS_TOKEN>");
      const ok = await fetch(`${locked.url}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toMatch(/^escalation_redis_up 1$/m);
    } finally {
      await locked.close();
    }
  });
});

describe("/login and /logout", () => {
  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: app.url, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  const sessionOf = (res: Response) => /^escalation_session=([^;]+);/.exec(res.headers.get("set-cookie") ?? "")?.[1];

  it("GET shows the form, carrying a same-origin next and sending no referrer off-site", async () => {
    const res = await fetch(`${app.url}/login?next=%2Fescalation%3Fby%3Danswerer`);
    expect(res.status).toBe(200);
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    expect(res.headers.get("content-security-policy")).toMatch(/form-action 'self'/);
    const page = await res.text();
    expect(page).toContain('<form method="post" action="/login">');
    expect(page).toContain('<input type="hidden" name="next" value="/escalation?by=answerer">');
    expect(await (await fetch(`${app.url}/login?next=//evil.example/x`)).text()).toContain('name="next" value="/escalation"');
    expect((await fetch(`${app.url}/login?token=${TOKEN}`)).status).toBe(400);
  });

  it("POST with the token sets a signed HttpOnly SameSite=Strict cookie and 303s to next; the cookie opens the page and its JSON", async () => {
    const res = await form({ token: ` ${TOKEN} `, next: "/escalation?by=answerer" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/escalation?by=answerer");
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^escalation_session=v1\.\d+\.[\w-]+\.[\w-]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);
    const session = { cookie: `${SESSION_COOKIE}=${sessionOf(res)}` };
    const page = await fetch(`${app.url}/escalation?by=answerer`, { headers: session, redirect: "manual" });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Open gates by who can answer");
    expect((await fetch(`${app.url}/escalation/api/gates`, { headers: session })).status).toBe(200);
  });

  it("sets Secure when the browser is on https (its Origin), behind a proxy that names the host", async () => {
    const res = await form({ token: TOKEN }, { origin: "https://escalation.example", "x-forwarded-host": "escalation.example" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/escalation");
    expect(res.headers.get("set-cookie")).toMatch(/; SameSite=Strict; Secure$/);
  });

  it("never redirects off this server", async () => {
    for (const next of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"]) {
      const res = await form({ token: TOKEN, next });
      expect(res.status).toBe(303);
      expect(res.headers.get("location"), next).toBe("/escalation");
    }
  });

  it("refuses a wrong token (401, the form again), a post from another site or without an origin (403), and a body that is no form", async () => {
    const wrong = await form({ token: "not-the-token", next: "/escalation" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.text()).toContain("Wrong token: paste the server&#39;s ADMIN_TOKEN.");
    const empty = await form({ next: "/escalation" });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("token: is required");
    for (const origin of ["https://evil.example", "null"]) {
      const crossSite = await form({ token: TOKEN }, { origin });
      expect(crossSite.status).toBe(403);
      expect(crossSite.headers.get("set-cookie")).toBeNull();
      expect(await crossSite.text()).toContain("Sign in with the form at /login on this server");
    }
    const noOrigin = await fetch(`${app.url}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${TOKEN}`,
    });
    expect(noOrigin.status).toBe(403);
    const json = await form({}, { "content-type": "application/json" });
    expect(json.status).toBe(415);
  });

  it("refuses a forged or expired session on every admin surface", async () => {
    const expired = new SessionKey(TOKEN).issue(Date.now() - SESSION_SECONDS * 1000 - 1000);
    const foreign = new SessionKey("another-admin-token-0123456789").issue();
    for (const value of [expired, foreign, TOKEN]) {
      const page = await fetch(`${app.url}/escalation`, { headers: { cookie: `${SESSION_COOKIE}=${value}` }, redirect: "manual" });
      expect(page.status).toBe(303);
      expect(page.headers.get("location")).toBe("/login?next=%2Fescalation");
      expect((await fetch(`${app.url}/escalation/api/gates`, { headers: { cookie: `${SESSION_COOKIE}=${value}` } })).status).toBe(401);
    }
  });

  it("slows down repeated failures from one client (429 with Retry-After)", async () => {
    const own = await serve(inject("redisUrl"), { adminToken: TOKEN });
    try {
      const post = (token: string) =>
        fetch(`${own.url}/login`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", origin: own.url },
          body: `token=${token}`,
        });
      for (let i = 0; i < 10; i++) expect((await post("wrong")).status).toBe(401);
      const limited = await post(TOKEN);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(500);
      expect(limited.headers.get("set-cookie")).toBeNull();
    } finally {
      await own.close();
    }
  });

  it("POST /logout clears the cookie and goes to the form", async () => {
    const res = await fetch(`${app.url}/logout`, { method: "POST", redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/login");
    expect(res.headers.get("set-cookie")).toBe("escalation_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict");
    expect((await fetch(`${app.url}/logout`)).status).toBe(405);
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
    expect(Object.keys(body.queues).sort()).toEqual(["feedback", "inbound", "maintenance", "mirror", "spawn", "timeouts"]);
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
