import { DelayedError, type Job } from "bullmq";
import { limitSignalOf, WriteBudget } from "../github/writeBudget.js";
import type { Services } from "../services.js";

/** What a writer reads and tells: the budget's log and windows, the job's write order, events and the log. */
export type WriterPorts = Pick<Services, "writeBudgetLog" | "feedbackOrder" | "events" | "log"> & { config: Pick<Services["config"], "githubWrites"> };

/** Raised (without a token to delay the job with) so BullMQ retries the job later, or its caller queues the writes. */
export class WritesDeferred extends Error {
  override name = "WritesDeferred";
}

/**
 * Sends a feedback job's GitHub writes one at a time within the installation's write budget, or puts
 * the job off until one may go: the one place that takes a budget slot, counts a write sent, backs
 * off on GitHub's rate limit and tells observers what became of each write.
 */
export class BudgetedWriter {
  private readonly budget: WriteBudget;

  constructor(
    private readonly services: WriterPorts,
    private readonly installationId: number,
    private readonly job: Job,
    private readonly token: string | undefined,
    /** The issue, when this job is in its write order: its followers then wait until after it. */
    private readonly ordered?: { repo: string; issue: number },
  ) {
    this.budget = new WriteBudget(services.writeBudgetLog, services.config.githubWrites);
  }

  /** An earlier job of the issue is still to write (put off until `dueAt`, if known): go after it. */
  async waitBehind(dueAt: number | undefined): Promise<never> {
    const ms = dueAt !== undefined && dueAt > Date.now() ? dueAt - Date.now() + 50 : 500;
    return this.putOff(ms, "an earlier write to the issue goes first");
  }

  async send<T>(request: () => Promise<T>): Promise<T> {
    const grant = await this.budget.take(this.installationId);
    if (!grant.granted) {
      this.services.events.notify("github.write", { installationId: this.installationId, outcome: "deferred" });
      return this.putOff(grant.waitMs, grant.reason === "paused" ? "GitHub asked the app to stop writing" : `the write budget per ${grant.reason} is spent`);
    }
    try {
      const result = await request();
      this.services.events.notify("github.write", { installationId: this.installationId, outcome: "written" });
      await this.budget.succeeded(this.installationId);
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
      await this.budget.sent(this.installationId, grant.ticket);
    }
  }

  /** A write that a later state made moot was not sent. */
  coalesced(): number {
    this.services.events.notify("github.write", { installationId: this.installationId, outcome: "coalesced" });
    return 0;
  }

  private async putOff(ms: number, why: string): Promise<never> {
    if (this.token === undefined) throw new WritesDeferred(`${why}: retry in ${ms} ms`);
    const dueAt = Date.now() + ms;
    if (this.ordered && this.job.id) await this.services.feedbackOrder.feedbackPutOff(this.ordered, this.job.id, dueAt);
    await this.job.moveToDelayed(dueAt, this.token);
    throw new DelayedError(`${why}: delayed ${ms} ms`);
  }
}
