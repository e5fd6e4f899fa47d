import { setTimeout as delay } from "node:timers/promises";
import type { Redis } from "ioredis";
import { withDeadline } from "../deadline.js";
import { blockingConnection, unmendable, workerName } from "./workerParts.js";
import type { Logger } from "pino";
import type { DeliveryEntry, DeliveryOutcome, InboundStream } from "./inboundStream.js";
import { InboundEventSchema, type InboundEvent } from "./payloads.js";
import { LOCK_RENEW_MS } from "./roundGuards.js";

/**
 * Deliveries handled at once. An event's handling mostly waits (on Redis, on the event loop other
 * work holds): 32 at once record twice the answers a second that 8 did (tools/bench/README.md).
 */
const CONCURRENCY = 32;
/** Tries of a delivery whose handling throws, 1 s, 2 s, 4 s and 8 s apart, before it is moved to the failed stream. */
const ATTEMPTS = 5;

/** The worker's clock: how soon a stalled entry is taken over, how often that is looked for, a retry's first backoff. */
export interface InboundTiming {
  /** An entry a worker has not kept this long is taken over (its worker died or lost Redis): as a spawn job's lock, src/jobs/startWorkers.ts. */
  stalledAfterMs: number;
  claimEveryMs: number;
  /** How often the entries being handled are kept (their idle time reset), as BullMQ renews a job's lock. */
  keepEveryMs: number;
  /** Doubled at each retry. */
  backoffMs: number;
}
const TIMING: InboundTiming = { stalledAfterMs: 20_000, claimEveryMs: 5_000, keepEveryMs: LOCK_RENEW_MS, backoffMs: 1000 };
/** An entry handed out this often without being handled kills its worker every time: it is failed, not tried again. */
const MAX_HANDED_OUT = 11;
/** How long a read waits for a delivery before it looks again (and notices a close). */
const BLOCK_MS = 1000;

export interface InboundWorkerPorts {
  stream: InboundStream;
  log: Pick<Logger, "warn" | "error" | "debug">;
  /** Handles one event and says what it made of it (describeOutcome's words). */
  handle(event: InboundEvent): Promise<string>;
}

export interface InboundWorker {
  /** Stops reading, lets the deliveries being handled finish within `deadlineMs`; the rest are taken over by the next worker. */
  close(deadlineMs: number): Promise<void>;
}

function outcomeOf(event: InboundEvent, outcome: string): DeliveryOutcome {
  return {
    delivery: event.deliveryId,
    kind: event.kind,
    repo: event.repo,
    issue: event.issue.number,
    ...(event.kind === "comment" ? { comment: event.comment.id } : {}),
    outcome,
  };
}

/**
 * Reads the inbound stream in the consumer group, handles up to 32 deliveries at once and ends each
 * with its outcome. A delivery whose handling throws is tried again in this worker (1 s, 2 s, 4 s,
 * 8 s), then moved to the failed stream. The entries it holds have their idle time reset every 2 s,
 * as BullMQ renews a job's lock; an entry idle 20 s (its worker died) is taken over by whichever
 * worker looks first. `connection` retries forever (a worker connection): a blocking read holds a
 * duplicate of it.
 */
export function startInboundWorker(ports: InboundWorkerPorts, connection: Redis, timing: InboundTiming = TIMING): InboundWorker {
  const { stream, log } = ports;
  const consumer = workerName();
  const blocking = blockingConnection(connection, log, "inbound stream");
  /** The entries this worker is handling, retries waiting out their backoff included. */
  const held = new Map<string, DeliveryEntry>();
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  let wakeReader: (() => void) | undefined;

  /** Waits `ms`, or less when the worker closes (Node's timer drops its abort listener as it ends, so retries pile none up). */
  const pause = (ms: number) => delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined);

  const finish = (entry: DeliveryEntry, event: InboundEvent, outcome: string) => stream.finish(entry.id, outcomeOf(event, outcome));

  async function handle(first: DeliveryEntry): Promise<void> {
    let event: InboundEvent | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        event ??= InboundEventSchema.parse(JSON.parse(first.event));
        await finish(first, event, await ports.handle(event));
        return;
      } catch (error) {
        log.warn({ queue: "inbound", delivery: first.delivery, attempt, err: error }, "delivery failed");
        if (stopping.signal.aborted) return; // left pending: the next worker takes it over
        if (attempt >= ATTEMPTS || unmendable(error)) {
          await stream.fail(first, error instanceof Error ? error.message : String(error), attempt);
          return;
        }
      }
      await pause(timing.backoffMs * 2 ** (attempt - 1));
      if (stopping.signal.aborted) return;
      // Deleted meanwhile: its text was withdrawn (src/gates/withdrawals.ts), or Redis lost it.
      if (!(await stream.entry(first.id))) {
        await finish(first, event!, "dropped: its entry was deleted before it was tried again");
        return;
      }
    }
  }

  function start(entry: DeliveryEntry): void {
    if (held.has(entry.id)) return;
    held.set(entry.id, entry);
    const work = handle(entry)
      .catch((error: unknown) => log.error({ queue: "inbound", delivery: entry.delivery, err: error }, "delivery left for another worker to take over"))
      .finally(() => {
        held.delete(entry.id);
        running.delete(work);
        wakeReader?.();
      });
    running.add(work);
  }

  async function readLoop(): Promise<void> {
    while (!stopping.signal.aborted) {
      const free = CONCURRENCY - held.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (wakeReader = resolve));
        wakeReader = undefined;
        continue;
      }
      try {
        for (const entry of await stream.read(blocking, consumer, free, BLOCK_MS)) start(entry);
      } catch (error) {
        if (stopping.signal.aborted) return;
        log.warn({ err: error }, "could not read the inbound stream; trying again in a second");
        await pause(1000);
      }
    }
  }

  const keeping = setInterval(() => {
    const ids = [...held.keys()];
    stream.keep(consumer, ids).then(
      (kept) => {
        if (kept < ids.length)
          log.warn(
            { held: ids.length, kept },
            "deliveries this worker is handling are no longer its own: another took them over (this one stalled), or Redis lost them",
          );
      },
      (error: unknown) => log.debug({ err: error }, "could not keep the deliveries being handled"),
    );
  }, timing.keepEveryMs);
  // Where the next look for stalled entries goes on in the group's pending list: each look reads a part of it.
  let cursor = "0-0";
  const claiming = setInterval(() => {
    const free = CONCURRENCY - held.size;
    if (free <= 0) return;
    stream.claimStalled(consumer, timing.stalledAfterMs, free, cursor).then(
      ({ next, entries: claimed }) => {
        cursor = next;
        for (const entry of claimed) {
          if (entry.deliveries > MAX_HANDED_OUT) {
            const why = `handed out ${entry.deliveries} times without being handled: its handling stops its worker`;
            stream.fail(entry, why, entry.deliveries).catch((error: unknown) => log.warn({ err: error }, "could not fail a stalled delivery"));
          } else {
            start(entry);
          }
        }
      },
      (error: unknown) => log.debug({ err: error }, "could not take over stalled deliveries"),
    );
  }, timing.claimEveryMs);

  const reading = stream.ensureGroup().then(readLoop, async (error: unknown) => {
    log.warn({ err: error }, "could not create the inbound stream's group; reading creates it");
    await readLoop();
  });

  return {
    async close(deadlineMs: number) {
      stopping.abort();
      clearInterval(keeping);
      clearInterval(claiming);
      wakeReader?.();
      blocking.disconnect();
      const late = () => new Error("the inbound worker did not finish in time");
      await withDeadline(Promise.all([reading, ...running]), deadlineMs, late).catch(() => undefined);
      await withDeadline(stream.leave(consumer), 2000, late).catch(() => undefined);
    },
  };
}
