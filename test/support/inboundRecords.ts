import { Redis } from "ioredis";
import type { InboundStream } from "../../src/jobs/inboundStream.js";

/** What tests read of the inbound stream's keys (named by the stream, src/jobs/inboundStream.ts), on a connection of their own. */
export class InboundRecords {
  readonly #redis: Redis;

  constructor(
    redisUrl: string,
    private readonly stream: Pick<InboundStream, "streamKey" | "failedKey" | "outcomesKey" | "deliveryKey">,
  ) {
    this.#redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  }

  /** The deliveries the stream holds in any state: still to do, failed, or handled (as far as the capped outcomes reach). */
  async count(): Promise<number> {
    const keys = [this.stream.streamKey(), this.stream.failedKey(), this.stream.outcomesKey()];
    const lengths = await Promise.all(keys.map((key) => this.#redis.xlen(key)));
    return lengths.reduce((sum, n) => sum + n, 0);
  }

  /** Whether delivery `deliveryId` was recorded (within the last 24 h). */
  async recorded(deliveryId: string): Promise<boolean> {
    return (await this.#redis.exists(this.stream.deliveryKey(deliveryId))) === 1;
  }

  async close(): Promise<void> {
    await this.#redis.quit();
  }
}
