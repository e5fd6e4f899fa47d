import { createHmac, randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { Webhooks } from "@octokit/webhooks";
import type { WebhookEvent } from "./operations.js";
import type { Delivery, LostDelivery } from "./types.js";

/**
 * Signs and delivers webhooks the way GitHub's Hookshot does: one at a time, in order, each awaited
 * with a 10 s timeout, never retried automatically. A paused dispatcher queues until set live again.
 */

const DELIVERY_TIMEOUT_MS = 10_000;
/** Bodies kept for redeliver; long benchmarks would otherwise hold every payload ever sent. */
const MAX_STORED_DELIVERIES = 10_000;

export interface DispatcherOptions {
  secret: string;
  appId: number;
  url: string | undefined;
  /** Called once per attempt; the simulator appends to its public `deliveries`. */
  record: (delivery: Delivery) => void;
  /** Called for each event lost (never sent); the simulator appends to its public `lostDeliveries`. */
  lost: (delivery: LostDelivery) => void;
  log: (line: string) => void;
}

interface StoredDelivery {
  event: string;
  action: string;
  body: string;
  attempts: number;
}

/**
 * The signatures GitHub sends with a delivery: sha256 as @octokit/webhooks signs it (what Probot
 * verifies), and the legacy sha1 one GitHub still sends beside it, which @octokit/webhooks does not make.
 */
export async function signatureHeaders(secret: string, body: string): Promise<Record<"X-Hub-Signature" | "X-Hub-Signature-256", string>> {
  return {
    "X-Hub-Signature": `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`,
    "X-Hub-Signature-256": await new Webhooks({ secret }).sign(body),
  };
}

export class WebhookDispatcher {
  private url: string | undefined;
  private mode: "live" | "paused" = "live";
  private readonly queue: Array<{ id: string; url: string; delivery: StoredDelivery }> = [];
  /** Recent deliveries, oldest first, kept for redeliver. */
  private readonly stored = new Map<string, StoredDelivery>();
  private sending = false;
  private waiters: Array<() => void> = [];
  private readonly shutdown = new AbortController();
  /** Events still to lose. */
  private losing = 0;

  constructor(private readonly options: DispatcherOptions) {
    this.url = options.url;
  }

  setUrl(url: string | undefined): void {
    this.url = url;
  }

  /** Like GitHub with no webhook URL configured, events raised while there is none are not delivered at all. */
  enqueue(event: WebhookEvent): void {
    if (!this.url || this.shutdown.signal.aborted) return;
    const id = randomUUID();
    const delivery: StoredDelivery = { event: event.event, action: event.action, body: JSON.stringify(event.payload), attempts: 0 };
    this.stored.set(id, delivery);
    if (this.stored.size > MAX_STORED_DELIVERIES) this.stored.delete(this.stored.keys().next().value!);
    if (this.losing > 0) {
      this.losing--;
      this.options.log(`webhook ${delivery.event}.${delivery.action} ${id} lost`);
      this.options.lost({ id, event: delivery.event, action: delivery.action, at: Date.now() });
      return;
    }
    this.queue.push({ id, url: this.url, delivery });
    void this.pump();
  }

  /** The next `count` events are never sent, as when GitHub loses deliveries; each stays redeliverable. */
  loseNext(count: number): void {
    this.losing = count;
  }

  setMode(mode: "live" | "paused"): void {
    this.mode = mode;
    void this.pump();
  }

  whenDelivered(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Sends the stored body again under the same delivery id, to the current webhook URL, bypassing the queue. */
  async redeliver(id: string): Promise<number> {
    const delivery = this.stored.get(id);
    if (!delivery) throw new Error(`No delivery ${id} to redeliver (unknown, or older than the last ${MAX_STORED_DELIVERIES}).`);
    if (!this.url) throw new Error(`Cannot redeliver ${id}: no webhook URL is set.`);
    const status = await this.attempt(id, this.url, delivery);
    if (status === "error") throw new Error(`Redelivery of ${id} to ${this.url} failed; see deliveries for the attempt.`);
    return status;
  }

  /** Aborts the delivery in flight and drops the queue, so stopping never waits on a slow receiver. */
  close(): void {
    this.shutdown.abort();
    this.queue.length = 0;
    this.settle();
  }

  private idle(): boolean {
    return !this.sending && this.queue.length === 0;
  }

  private settle(): void {
    if (!this.idle()) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.mode === "live" && this.queue.length > 0) {
        const next = this.queue.shift()!;
        await this.attempt(next.id, next.url, next.delivery);
      }
    } finally {
      this.sending = false;
      this.settle();
    }
  }

  private async attempt(id: string, url: string, stored: StoredDelivery): Promise<number | "error"> {
    stored.attempts += 1;
    const at = Date.now();
    let status: number | "error";
    try {
      status = await post(url, await this.headers(id, stored), stored.body, this.shutdown.signal);
    } catch (error) {
      status = "error";
      this.options.log(`webhook ${stored.event}.${stored.action} ${id} failed: ${(error as Error).message}`);
    }
    const ms = Date.now() - at;
    this.options.log(`webhook ${stored.event}.${stored.action} ${id} attempt ${stored.attempts} -> ${status} (${ms} ms)`);
    this.options.record({ id, event: stored.event, action: stored.action, status, ms, at, attempt: stored.attempts });
    return status;
  }

  private async headers(id: string, stored: StoredDelivery): Promise<Record<string, string>> {
    return {
      "Content-Type": "application/json",
      "Content-Length": String(Buffer.byteLength(stored.body)),
      "User-Agent": "GitHub-Hookshot/simulator",
      "X-GitHub-Event": stored.event,
      "X-GitHub-Delivery": id,
      "X-GitHub-Hook-ID": String(400_000 + this.options.appId),
      "X-GitHub-Hook-Installation-Target-Type": "integration",
      "X-GitHub-Hook-Installation-Target-ID": String(this.options.appId),
      ...(await signatureHeaders(this.options.secret, stored.body)),
    };
  }
}

/** node:http without keep-alive, so a receiver can shut down without waiting on our idle sockets. */
function post(url: string, headers: Record<string, string>, body: string, shutdown: AbortSignal): Promise<number> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: "POST",
      headers,
      agent: false,
      signal: AbortSignal.any([shutdown, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
