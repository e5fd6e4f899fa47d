import { LogLevel, WebClient, type Logger as SlackLogger } from "@slack/web-api";
import type { Logger } from "pino";
import type { SlackConfig } from "../config/appConfig.js";
import type { Block } from "./message.js";

/** Our blocks are plain JSON built in message.ts; this is the WebClient's name for them. */
type SlackBlocks = NonNullable<Extract<Parameters<WebClient["chat"]["postMessage"]>[0], { blocks: unknown }>["blocks"]>;
const asSlackBlocks = (blocks: Block[]) => blocks as unknown as SlackBlocks;

export interface PostedMessage {
  channel: string;
  ts: string;
}

/** The two Slack calls the mirror makes. */
export interface SlackApi {
  post(channel: string, text: string, blocks: Block[]): Promise<PostedMessage>;
  update(message: PostedMessage, text: string, blocks: Block[]): Promise<void>;
}

/** Slack's logger interface on top of pino: its chatter goes to debug; BullMQ reports the failures. */
function slackLogger(log: Logger): SlackLogger {
  let level = LogLevel.DEBUG;
  return {
    debug: (...msg: unknown[]) => log.debug({ slack: msg.map(String).join(" ") }),
    info: (...msg: unknown[]) => log.debug({ slack: msg.map(String).join(" ") }),
    warn: (...msg: unknown[]) => log.debug({ slack: msg.map(String).join(" ") }),
    error: (...msg: unknown[]) => log.warn({ slack: msg.map(String).join(" ") }),
    setLevel: (l: LogLevel) => void (level = l),
    getLevel: () => level,
    setName: () => undefined,
  };
}

/**
 * A WebClient that fails fast: a short timeout and no retries of its own (the mirror queue
 * retries with backoff), and a rate limit is an error to retry later rather than a long sleep.
 */
export function slackApi(config: SlackConfig, log: Logger): SlackApi {
  const client = new WebClient(config.token, {
    slackApiUrl: config.apiUrl,
    timeout: config.timeoutMs,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: slackLogger(log),
  });
  return {
    async post(channel, text, blocks) {
      const result = await client.chat.postMessage({ channel, text, blocks: asSlackBlocks(blocks), unfurl_links: false, unfurl_media: false });
      if (!result.ts || !result.channel) throw new Error("Slack answered chat.postMessage without a channel and ts");
      return { channel: result.channel, ts: result.ts };
    },
    async update(message, text, blocks) {
      await client.chat.update({ channel: message.channel, ts: message.ts, text, blocks: asSlackBlocks(blocks) });
    },
  };
}
