import type { Redis } from "ioredis";
import { z } from "zod";
import { keyIn } from "../redis/prefix.js";

/** Why a running agent was stopped; the spawn worker treats each differently. */
export class StopRequest extends Error {
  override name = "StopRequest";
  constructor(
    readonly by: string,
    readonly why: "command" | "issue-closed",
  ) {
    super(why === "command" ? `stopped by @${by} with /stop` : `stopped because @${by} closed the issue`);
  }
}

/** Pub/sub channel: /stop and issue-close requests to whichever process runs that issue's agent. */
export function controlChannel(prefix: string): string {
  return keyIn(prefix, "control");
}

const ControlMessage = z.object({ repo: z.string(), issue: z.number(), by: z.string(), why: z.enum(["command", "issue-closed"]) });

/**
 * The agents running in this process, by issue, and a Redis pub/sub channel so a /stop handled by
 * any replica reaches the one whose worker runs that agent.
 */
export class RunningAgents {
  readonly #byIssue = new Map<string, Set<AbortController>>();

  constructor(
    private readonly publisher: Redis,
    private readonly channel: string,
  ) {}

  register(repo: string, issue: number, controller: AbortController): () => void {
    const key = `${repo.toLowerCase()}#${issue}`;
    const set = this.#byIssue.get(key) ?? new Set();
    set.add(controller);
    this.#byIssue.set(key, set);
    return () => {
      set.delete(controller);
      if (set.size === 0) this.#byIssue.delete(key);
    };
  }

  /** Asks every replica to stop the issue's agents. */
  async requestStop(repo: string, issue: number, by: string, why: StopRequest["why"]): Promise<void> {
    await this.publisher.publish(this.channel, JSON.stringify({ repo, issue, by, why }));
  }

  /** Subscribes `subscriber` (a dedicated connection) to stop requests. */
  async listen(subscriber: Redis): Promise<void> {
    subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.channel) return;
      let parsed;
      try {
        parsed = ControlMessage.parse(JSON.parse(message));
      } catch {
        return;
      }
      for (const controller of this.#byIssue.get(`${parsed.repo.toLowerCase()}#${parsed.issue}`) ?? []) {
        controller.abort(new StopRequest(parsed.by, parsed.why));
      }
    });
    await subscriber.subscribe(this.channel);
  }
}
