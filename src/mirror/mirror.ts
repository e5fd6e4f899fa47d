import { Queue, UnrecoverableError, Worker, type Job, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import type { SlackConfig } from "../config/appConfig.js";
import type { LoopEventMap } from "../events.js";
import { commandConnection, producerConnection, workerConnection } from "../jobs/connection.js";
import { keyIn } from "../redis/prefix.js";
import type { Services } from "../services.js";
import { renderGateMessage } from "./message.js";
import { slackApi, type PostedMessage, type SlackApi } from "./slack.js";

/** The mirror's own BullMQ queue: Slack being slow or down never touches the loop's queues. */
export const MIRROR_QUEUE = "mirror";

const MirrorJobSchema = z.object({ type: z.enum(["open", "update"]), gateId: z.string().min(1) });
export type MirrorJob = z.infer<typeof MirrorJobSchema>;

/** Retries 1 s, 2 s, 4 s … about two minutes in all: a Slack hiccup heals, a long outage is dropped. */
const JOB_OPTIONS = {
  attempts: 8,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} satisfies JobsOptions;

/** How long the Slack message reference of a gate is kept (updates after that are dropped). */
const MESSAGE_TTL_SECONDS = 30 * 86400;
/** Slack errors that no retry can fix: the job fails at once instead of retrying. */
const PERMANENT = new Set([
  "channel_not_found",
  "not_in_channel",
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "missing_scope",
  "invalid_blocks",
  "msg_too_long",
  "message_not_found",
  "cant_update_message",
  "is_archived",
]);

const safe = (text: string) => text.replace(/[^A-Za-z0-9_.-]/g, "_");
const jobId = (type: MirrorJob["type"], gateId: string, state = "") => `mirror-${type}-${safe(gateId)}${state ? `-${safe(state)}` : ""}`;

export interface Mirror {
  queue: Queue<MirrorJob>;
  worker: Worker | undefined;
  close(): Promise<void>;
}

export interface MirrorOptions {
  redisUrl: string;
  /** Run the mirror worker in this process (with the loop's workers). */
  worker: boolean;
  /** For tests: a Slack API other than the real WebClient. */
  slack?: SlackApi;
}

/** Where each gate's Slack message is, so a later event updates it instead of posting again. */
class MessageRefs {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** String with TTL: the Slack message ({channel, ts}) mirroring a gate, for chat.update. */
  key(gateId: string): string {
    return keyIn(this.prefix, `mirror:slack:${gateId}`);
  }

  async get(gateId: string): Promise<PostedMessage | undefined> {
    const raw = await this.redis.get(this.key(gateId));
    return raw ? (JSON.parse(raw) as PostedMessage) : undefined;
  }

  async set(gateId: string, message: PostedMessage): Promise<void> {
    await this.redis.set(this.key(gateId), JSON.stringify(message), "EX", MESSAGE_TTL_SECONDS);
  }
}

/**
 * Mirrors gates to a Slack channel when SLACK_BOT_TOKEN and SLACK_CHANNEL are set: a message when
 * a gate opens, updated when it is answered or closed. Events only enqueue (never awaited by the
 * loop); the worker talks to Slack with a short timeout and BullMQ retries with backoff.
 * Returns undefined when Slack is not configured.
 */
export function startMirror(services: Services, options: MirrorOptions): Mirror | undefined {
  const config = services.config.slack;
  if (!config) return undefined;
  const prefix = services.config.redisPrefix;
  const log = services.log.child({ name: "mirror" });
  const producer = producerConnection(options.redisUrl);
  const connections: Redis[] = [producer];
  const queue = new Queue<MirrorJob>(MIRROR_QUEUE, { connection: producer, prefix });
  queue.on("error", (error) => log.warn({ err: error }, "mirror queue error"));

  const enqueue = async (type: MirrorJob["type"], gateId: string, state?: string) => {
    try {
      await queue.add(type, { type, gateId }, { ...JOB_OPTIONS, jobId: jobId(type, gateId, state) });
    } catch (error) {
      log.warn({ err: error, gate: gateId }, "could not queue a Slack mirror job; the loop goes on without it");
    }
  };
  const listeners: { [K in keyof LoopEventMap]?: (...args: LoopEventMap[K]) => unknown } = {
    "gate.opened": ({ gate }) => enqueue("open", gate.id),
    "gate.answered": ({ gate }) => enqueue("update", gate.id, "answered"),
    "gate.closed": ({ gate, state }) => enqueue("update", gate.id, state),
    // The message shows the answers: a withdrawn or edited one must go from Slack too.
    "gate.revised": ({ gateId, at }) => enqueue("update", gateId, `revised-${at}`),
  };
  services.events.on("gate.opened", listeners["gate.opened"]!);
  services.events.on("gate.answered", listeners["gate.answered"]!);
  services.events.on("gate.closed", listeners["gate.closed"]!);
  services.events.on("gate.revised", listeners["gate.revised"]!);

  let worker: Worker | undefined;
  if (options.worker) {
    const commands = commandConnection(options.redisUrl);
    const workerRedis = workerConnection(options.redisUrl);
    connections.push(commands, workerRedis);
    const refs = new MessageRefs(commands, prefix);
    const slack = options.slack ?? slackApi(config, log);
    worker = new Worker(MIRROR_QUEUE, async (job: Job) => processMirrorJob({ services, config, slack, refs, queue }, job), {
      connection: workerRedis,
      prefix,
      concurrency: 4,
    });
    worker.on("failed", (job, error) => log.warn({ job: job?.id, attempt: job?.attemptsMade, err: error.message }, "Slack mirror job failed"));
    worker.on("error", (error) => log.warn({ err: error }, "mirror worker error"));
  }

  return {
    queue,
    worker,
    async close() {
      services.events.off("gate.opened", listeners["gate.opened"]!);
      services.events.off("gate.answered", listeners["gate.answered"]!);
      services.events.off("gate.closed", listeners["gate.closed"]!);
      services.events.off("gate.revised", listeners["gate.revised"]!);
      if (worker) {
        // A Slack call in flight ends within its timeout; do not let shutdown wait longer.
        const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.timeoutMs + 1000).unref());
        await Promise.race([worker.close(), deadline]);
        await worker.close(true);
      }
      await queue.close();
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

interface MirrorDeps {
  services: Services;
  config: SlackConfig;
  slack: SlackApi;
  refs: MessageRefs;
  queue: Queue<MirrorJob>;
}

/** A job that must wait for another (the update of a message not yet posted): retried with backoff. */
class NotYet extends Error {
  override name = "NotYet";
}

export async function processMirrorJob(deps: MirrorDeps, job: Job): Promise<string> {
  const { type, gateId } = MirrorJobSchema.parse(job.data);
  const { gates, issues } = deps.services;
  const gate = await gates.getGate(gateId);
  if (!gate) return "gate gone";
  const issue = await issues.getIssue({ repo: gate.repo, issue: gate.issue });
  // Rendered from the gate as it is now, so a late or retried job never shows a stale state.
  const message = renderGateMessage(gate, issue?.title);
  const posted = await deps.refs.get(gateId);
  try {
    if (posted) {
      if (type === "open") return "already posted";
      await deps.slack.update(posted, message.text, message.blocks);
      return "updated";
    }
    if (type === "update") {
      const opening = await deps.queue.getJob(jobId("open", gateId));
      const state = opening ? await opening.getState() : "unknown";
      if (["waiting", "active", "delayed", "prioritized", "waiting-children"].includes(state)) {
        throw new NotYet(`the Slack message of gate ${gateId} is not posted yet (its job is ${state})`);
      }
      // The opening message never made it: post the gate's final state instead of nothing.
    }
    // A repository may send its gates to its own channel (`slack.channel` in .github/escalation.yml).
    const { settings } = await deps.services.settings(gate.installationId, gate.repo);
    const sent = await deps.slack.post(settings.slackChannel ?? deps.config.channel, message.text, message.blocks);
    await deps.refs.set(gateId, sent);
    return "posted";
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code && PERMANENT.has(code)) throw new UnrecoverableError(`Slack refused (${code}); not retrying`);
    throw error;
  }
}
