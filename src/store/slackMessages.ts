import type { Redis } from "ioredis";
import { keyIn } from "../redis/prefix.js";
import type { PostedMessage } from "../mirror/slack.js";

/** How long the Slack message reference of a gate is kept (updates after that are dropped). */
const MESSAGE_TTL_SECONDS = 30 * 86400;

/** Where each gate's Slack message is, so a later event updates it instead of posting again. */
export class SlackMessages {
  readonly #redis: Redis;

  constructor(
    redis: Redis,
    readonly prefix: string,
  ) {
    this.#redis = redis;
  }

  /** String with TTL: the Slack message ({channel, ts}) mirroring a gate, for chat.update. */
  messageKey(gateId: string): string {
    return keyIn(this.prefix, `mirror:slack:${gateId}`);
  }

  async message(gateId: string): Promise<PostedMessage | undefined> {
    const raw = await this.#redis.get(this.messageKey(gateId));
    return raw ? (JSON.parse(raw) as PostedMessage) : undefined;
  }

  async recordMessage(gateId: string, message: PostedMessage): Promise<void> {
    await this.#redis.set(this.messageKey(gateId), JSON.stringify(message), "EX", MESSAGE_TTL_SECONDS);
  }
}
