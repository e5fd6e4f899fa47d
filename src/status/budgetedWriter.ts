import { limitSignalOf, WriteBudget } from "../github/writeBudget.js";
import type { Services } from "../services/services.js";

/** What a writer reads and tells: the budget's log and windows, events and the log. */
export type WriterPorts = Pick<Services, "writeBudgetLog" | "events" | "log"> & { config: Pick<Services["config"], "githubWrites"> };

/** No write may go now: the feedback worker puts the entry off `retryInMs` (no try used up); a caller writing at once queues the writes instead. */
export class WritesDeferred extends Error {
  override name = "WritesDeferred";
  constructor(
    message: string,
    readonly retryInMs: number,
  ) {
    super(message);
  }
}

/**
 * Sends feedback's GitHub writes one at a time within the installation's write budget, or says how
 * long they must wait (WritesDeferred): the one place that takes a budget slot, counts a write sent,
 * backs off on GitHub's rate limit and tells observers what became of each write.
 */
export class BudgetedWriter {
  private readonly budget: WriteBudget;

  constructor(
    private readonly services: WriterPorts,
    private readonly installationId: number,
  ) {
    this.budget = new WriteBudget(services.writeBudgetLog, services.config.githubWrites);
  }

  async send<T>(request: () => Promise<T>): Promise<T> {
    const grant = await this.budget.take(this.installationId);
    if (!grant.granted) {
      this.services.events.notify("github.write", { installationId: this.installationId, outcome: "deferred" });
      return this.putOff(grant.waitMs, grant.reason === "paused" ? "GitHub asked the app to stop writing" : `the write budget per ${grant.reason} is spent`);
    }
    let wentThrough = false;
    try {
      const result = await request();
      wentThrough = true;
      this.services.events.notify("github.write", { installationId: this.installationId, outcome: "written" });
      return result;
    } catch (error) {
      const signal = limitSignalOf(error);
      if (!signal) throw error;
      const pauseMs = await this.budget.limited(this.installationId, signal);
      this.services.events.notify("github.write", { installationId: this.installationId, outcome: "limited" });
      this.services.log.warn(
        { installation: this.installationId, status: (error as { status?: number }).status, kind: signal.kind, retryAfter: signal.retryAfterSeconds, pauseMs },
        "GitHub rate-limited the app's writes; no write for this installation until the pause ends",
      );
      return this.putOff(pauseMs, `GitHub's ${signal.kind} rate limit`);
    } finally {
      await this.budget.sent(this.installationId, grant, wentThrough);
    }
  }

  /** A write that a later state made moot was not sent. */
  coalesced(): number {
    this.services.events.notify("github.write", { installationId: this.installationId, outcome: "coalesced" });
    return 0;
  }

  private putOff(ms: number, why: string): never {
    throw new WritesDeferred(`${why}: retry in ${ms} ms`, ms);
  }
}
