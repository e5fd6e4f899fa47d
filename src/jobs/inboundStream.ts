import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";
import { withScripts, type ScriptArgs } from "../store/scriptedRedis.js";
import { ADD_DELIVERY, COUNT_DELIVERIES, FAIL_DELIVERY, FINISH_DELIVERY, FORGET_DELIVERY, KEEP_DELIVERIES } from "./inboundScripts.js";
import type { InboundEvent } from "./payloads.js";

/** A redelivery within this long of the first is refused (GitHub's redeliveries come within days; a delivery id is unique). */
const DEDUPLICATE_MS = 24 * 3600 * 1000;
/** The newest outcomes kept for people and tests to read (about: the stream is trimmed in whole nodes). */
const OUTCOMES_KEPT = 1000;
/** Failed entries are kept a week, for an operator to read. */
const FAILED_KEPT_MS = 7 * 24 * 3600 * 1000;
/** The one consumer group every replica's inbound worker reads in. */
const GROUP = "workers";

/** A delivery read from the stream: its entry id, its delivery id and the event as recorded (JSON). */
export interface DeliveryEntry {
  id: string;
  delivery: string;
  event: string;
}

/** A delivery claimed from a stalled worker, and how many times it has been handed out so far. */
export interface ClaimedEntry extends DeliveryEntry {
  deliveries: number;
}

/** What the inbound worker made of a delivery: no text of the event, only what it was about. */
export interface DeliveryOutcome {
  delivery: string;
  kind: InboundEvent["kind"];
  repo: string;
  issue: number;
  /** The reply's id, for a comment event. */
  comment?: number;
  /** describeOutcome's words ("answer recorded", "ignored: …"). */
  outcome: string;
}

/** The states the health check and the metrics ask of every queue, the stream included. */
export type CountedState = "waiting" | "active" | "delayed" | "failed";

interface InboundCommands {
  escAddDelivery(...args: ScriptArgs): Promise<number>;
  escFinishDelivery(...args: ScriptArgs): Promise<number>;
  escFailDelivery(...args: ScriptArgs): Promise<number>;
  escForgetDelivery(...args: ScriptArgs): Promise<number>;
  escKeepDeliveries(...args: ScriptArgs): Promise<number>;
  escCountDeliveries(...args: ScriptArgs): Promise<[number, number, number]>;
}

type RawEntry = [id: string, fields: string[] | null];

/** An entry's fields as a record (a deleted entry claimed from the pending list has none). */
function fieldsOf(fields: string[] | null): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; fields && i + 1 < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
  return record;
}

function toEntry([id, fields]: RawEntry): DeliveryEntry | undefined {
  const { delivery, event } = fieldsOf(fields);
  return delivery !== undefined && event !== undefined ? { id, delivery, event } : undefined;
}

/** Redis lost the group (a wipe): NOGROUP, or UNBLOCKED for a read that was waiting when the stream went. */
function isNoGroup(error: unknown): boolean {
  return error instanceof Error && (error.message.startsWith("NOGROUP") || error.message.startsWith("UNBLOCKED"));
}

/**
 * The webhook deliveries the app has acknowledged and not yet handled: a Redis stream read by one
 * consumer group, a few commands per delivery where a BullMQ job took about sixty (tools/bench/README.md).
 * The one place that knows its key layout: the stream (work still to do, each entry deleted once
 * handled), each delivery's key (its id → its entry, for 24 h: a redelivery is refused, a withdrawal
 * finds the text), the failed stream (a week) and the capped stream of outcomes.
 */
export class InboundStream {
  /** The name the health check and the metrics give it, as they name the BullMQ queues. */
  readonly name = "inbound";
  readonly group = GROUP;
  readonly #redis: Redis & InboundCommands;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = withScripts<InboundCommands>(redis, {
      escAddDelivery: { numberOfKeys: 2, lua: ADD_DELIVERY },
      escFinishDelivery: { numberOfKeys: 2, lua: FINISH_DELIVERY },
      escFailDelivery: { numberOfKeys: 3, lua: FAIL_DELIVERY },
      escForgetDelivery: { numberOfKeys: 3, lua: FORGET_DELIVERY },
      escKeepDeliveries: { numberOfKeys: 1, lua: KEEP_DELIVERIES },
      escCountDeliveries: { numberOfKeys: 2, lua: COUNT_DELIVERIES },
    });
  }

  /** Stream: the deliveries still to do, in the order they came. */
  streamKey(): string {
    return keyIn(this.prefix, "deliveries");
  }
  /** String with TTL: the delivery's entry id (`failed:<id>` once it failed). */
  deliveryKey(deliveryId: string): string {
    return keyIn(this.prefix, `deliveries:id:${deliveryId}`);
  }
  /** Stream: the deliveries that kept failing, with their event and last error. */
  failedKey(): string {
    return keyIn(this.prefix, "deliveries:failed");
  }
  /** Stream, capped: what the worker made of the latest deliveries. */
  outcomesKey(): string {
    return keyIn(this.prefix, "deliveries:outcomes");
  }

  /** Records an acknowledged delivery; false when its id was recorded within the last 24 h (a redelivery). */
  async add(event: InboundEvent): Promise<boolean> {
    return (
      (await this.#redis.escAddDelivery(this.deliveryKey(event.deliveryId), this.streamKey(), DEDUPLICATE_MS, event.deliveryId, JSON.stringify(event))) === 1
    );
  }

  /** Creates the consumer group (and the stream) unless it exists: at start, and after Redis lost them. */
  async ensureGroup(): Promise<void> {
    try {
      // From the stream's start: entries added before the group existed (after a wipe) are read too.
      await this.#redis.xgroup("CREATE", this.streamKey(), GROUP, "0", "MKSTREAM");
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith("BUSYGROUP"))) throw error;
    }
  }

  /**
   * Up to `count` deliveries no consumer was handed yet, waiting up to `blockMs` for one, on
   * `blocking` (a connection of its own: it is held while it waits). The group is created again
   * when Redis lost it.
   */
  async read(blocking: Redis, consumer: string, count: number, blockMs: number): Promise<DeliveryEntry[]> {
    const read = () => blocking.xreadgroup("GROUP", GROUP, consumer, "COUNT", count, "BLOCK", blockMs, "STREAMS", this.streamKey(), ">");
    let reply;
    try {
      reply = await read();
    } catch (error) {
      if (!isNoGroup(error)) throw error;
      await this.ensureGroup();
      reply = await read();
    }
    const streams = reply as [string, RawEntry[]][] | null;
    return (streams?.[0]?.[1] ?? []).flatMap((raw) => toEntry(raw) ?? []);
  }

  /** The entry as it stands now: undefined once deleted (handled elsewhere, or its text withdrawn). */
  async entry(id: string): Promise<DeliveryEntry | undefined> {
    const [raw] = (await this.#redis.xrange(this.streamKey(), id, id)) as RawEntry[];
    return raw ? toEntry(raw) : undefined;
  }

  /** The delivery is handled: acknowledged, deleted, its outcome kept among the latest. */
  async finish(id: string, outcome: DeliveryOutcome): Promise<void> {
    const fields = Object.entries(outcome).flatMap(([field, value]) => (value === undefined ? [] : [field, String(value)]));
    await this.#redis.escFinishDelivery(this.streamKey(), this.outcomesKey(), GROUP, id, OUTCOMES_KEPT, ...fields);
  }

  /** The delivery kept failing: moved to the failed stream with its event and the last error. */
  async fail(entry: DeliveryEntry, error: string, attempts: number): Promise<void> {
    const fields = ["delivery", entry.delivery, "event", entry.event, "error", error, "attempts", attempts, "failedAt", Date.now()];
    await this.#redis.escFailDelivery(
      this.streamKey(),
      this.failedKey(),
      this.deliveryKey(entry.delivery),
      GROUP,
      entry.id,
      Date.now() - FAILED_KEPT_MS,
      ...fields,
    );
  }

  /** Deletes a delivery's entry that holds withdrawn text, waiting or failed: 1 when there was one. */
  async forget(deliveryId: string): Promise<number> {
    return this.#redis.escForgetDelivery(this.deliveryKey(deliveryId), this.streamKey(), this.failedKey());
  }

  /** Resets the idle time of the entries `consumer` is handling; returns how many it still owns. */
  async keep(consumer: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.#redis.escKeepDeliveries(this.streamKey(), GROUP, consumer, ...ids);
  }

  /**
   * Takes over up to `count` entries that a worker was handed and has not kept for `minIdleMs` (it
   * died, or lost Redis), with how often each has been handed out, looking in the group's pending
   * list from `cursor` on (Redis looks at most ten times `count` entries a call); `next` is where the
   * following call goes on ("0-0": from the start again). Entries deleted meanwhile leave the
   * pending list as they are met.
   */
  async claimStalled(consumer: string, minIdleMs: number, count: number, cursor = "0-0"): Promise<{ next: string; entries: ClaimedEntry[] }> {
    let reply;
    try {
      reply = (await this.#redis.xautoclaim(this.streamKey(), GROUP, consumer, minIdleMs, cursor, "COUNT", count)) as [string, RawEntry[], string[]?];
    } catch (error) {
      if (isNoGroup(error)) return { next: "0-0", entries: [] };
      throw error;
    }
    const [next] = reply;
    const entries = reply[1].flatMap((raw) => toEntry(raw) ?? []);
    if (entries.length === 0) return { next, entries: [] };
    const pending = (await this.#redis.xpending(this.streamKey(), GROUP, entries[0]!.id, entries.at(-1)!.id, 1000, consumer)) as [
      string,
      string,
      number,
      number,
    ][];
    const counts = new Map(pending.map(([id, , , deliveries]) => [id, deliveries]));
    return { next, entries: entries.map((entry) => ({ ...entry, deliveries: counts.get(entry.id) ?? 1 })) };
  }

  /** Drops this consumer from the group when it holds no entry (a worker closing cleanly). */
  async leave(consumer: string): Promise<void> {
    const [pending] = (await this.#redis.xpending(this.streamKey(), GROUP, "-", "+", 1, consumer).catch(() => [])) as unknown[];
    if (pending === undefined) await this.#redis.xgroup("DELCONSUMER", this.streamKey(), GROUP, consumer).catch(() => undefined);
  }

  /** Entries still to do (waiting or being handled): 0 when every acknowledged delivery is handled. */
  async unfinished(): Promise<number> {
    return this.#redis.xlen(this.streamKey());
  }

  /** The counts the health check and the metrics read of every queue: `delayed` is always 0 (a retry waits in its worker). */
  async getJobCounts(...states: CountedState[]): Promise<Partial<Record<CountedState, number>>> {
    const [total, pending, failed] = await this.#redis.escCountDeliveries(this.streamKey(), this.failedKey(), GROUP);
    const all: Record<CountedState, number> = { waiting: Math.max(0, total - pending), active: pending, delayed: 0, failed };
    return Object.fromEntries(states.map((state) => [state, all[state]]));
  }

  /** The latest outcomes, newest first. */
  async outcomes(count = OUTCOMES_KEPT): Promise<DeliveryOutcome[]> {
    const raw = (await this.#redis.xrevrange(this.outcomesKey(), "+", "-", "COUNT", count)) as RawEntry[];
    return raw.map(([, fields]) => {
      const { delivery = "", kind, repo = "", issue, comment, outcome = "" } = fieldsOf(fields);
      return { delivery, kind: kind as DeliveryOutcome["kind"], repo, issue: Number(issue), ...(comment ? { comment: Number(comment) } : {}), outcome };
    });
  }
}
