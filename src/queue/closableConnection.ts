import { RedisConnection } from "bullmq";

/**
 * The connection BullMQ wraps each queue's Redis client in, minus one trap: a queue closed while it
 * still initialises has every listener removed, yet its initialisation carries on, and when that
 * fails (the client is quit between "ready" and BullMQ's first command) the "error" it emits has
 * nobody to hear it. A plain EventEmitter throws then, as an unhandled rejection, which ends a Node
 * process. Nobody is waiting for that queue any more, so the error is dropped; errors of a queue or
 * worker in use still reach its listeners.
 */
export class ClosableConnection extends RedisConnection {
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === "error" && this.listenerCount("error") === 0) return false;
    return super.emit(event, ...args);
  }
}
