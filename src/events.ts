import { EventEmitter } from "node:events";
import type { Gate } from "./domain.js";

/**
 * What happened in the loop, for observers that must never affect it (metrics, the Slack mirror).
 * Emitted after the fact, in the process where it happened; a listener that throws is logged, not
 * propagated, so an observer cannot break a transition.
 */
export interface LoopEventMap {
  "gate.opened": [{ gate: Gate }];
  "gate.answered": [{ gate: Gate; by: string; source: "human" | "default" }];
  "gate.closed": [{ gate: Gate; state: "cancelled" | "superseded"; reason: string }];
  /** An answer's comment was edited or deleted: the gate's answers changed (it may be open again). `at` tells revisions apart. */
  "gate.revised": [{ gateId: string; at: number }];
  "agent.started": [{ repo: string; issue: number; round: number; replyToSpawnMs: number; resumedGate?: Gate }];
  "agent.exited": [{ repo: string; issue: number; round: number; outcome: "success" | "failure" | "timeout" | "stopped"; durationMs: number }];
  "webhook.delivery": [{ event: string; result: "queued" | "ignored" | "rejected" | "error" }];
  /**
   * A content-creating GitHub write of the feedback worker: sent, skipped as moot (coalesced), put
   * off for the write budget or a pause, or refused by GitHub's rate limit (the installation pauses).
   */
  "github.write": [{ installationId: number; outcome: "written" | "coalesced" | "deferred" | "limited" }];
}

export class LoopEvents extends EventEmitter<LoopEventMap> {
  constructor(private readonly onListenerError: (error: unknown, event: string) => void) {
    super();
  }

  /** Like emit, but isolates listeners: observers must not break the loop. */
  notify<K extends keyof LoopEventMap>(event: K, ...args: LoopEventMap[K]): void {
    for (const listener of this.listeners(event) as Array<(...a: LoopEventMap[K]) => unknown>) {
      try {
        const result = listener(...args);
        if (result instanceof Promise) result.catch((error: unknown) => this.onListenerError(error, event));
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }
}
