import { UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { withDeadline } from "../deadline.js";
import { ClosableConnection } from "./closableConnection.js";
import { WithdrawnDeliverySchema, type DeliveryOutcome } from "./inboundQueue.js";
import { JOB_TIMING, lockOptions, type JobTiming } from "./jobLocks.js";
import { QUEUES } from "../queueNames.js";
import { InboundEventSchema, type InboundEvent } from "../payloads.js";

/**
 * Deliveries handled at once. An event's handling mostly waits (on Redis, on the event loop other
 * work holds): 32 at once record twice the answers a second that 8 did (tools/bench/README.md).
 */
const CONCURRENCY = 32;

export interface InboundWorkerPorts {
  log: Pick<Logger, "warn">;
  /** Handles one event and says what it made of it (describeOutcome's words). */
  handle(event: InboundEvent): Promise<string>;
}

export interface InboundWorker {
  /** Stops taking deliveries, lets those being handled finish within `deadlineMs`; the rest are taken up by the next worker. */
  close(deadlineMs: number): Promise<void>;
}

function outcomeOf(event: InboundEvent, outcome: string): DeliveryOutcome {
  return {
    delivery: event.deliveryId,
    kind: event.kind,
    repo: event.repo,
    issue: event.issue.number,
    ...(event.kind === "comment" ? { comment: event.comment.id } : {}),
    outcome,
  };
}

/** A delivery's event, or why it is not handled: its text was withdrawn meanwhile, or it does not parse (no retry mends that). */
function eventOf(job: Job): InboundEvent | DeliveryOutcome {
  const withdrawn = WithdrawnDeliverySchema.safeParse(job.data);
  if (withdrawn.success) {
    const { deliveryId, kind, repo, issue } = withdrawn.data;
    return { delivery: deliveryId, kind: kind as InboundEvent["kind"], repo, issue, outcome: "dropped: its text was withdrawn before it was handled" };
  }
  const parsed = InboundEventSchema.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`the delivery does not parse: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * Handles the deliveries' queue on a BullMQ worker, 32 at once, each job ending with its outcome as
 * its return value. A handling that throws is retried by BullMQ (the job's attempts and backoff,
 * src/queue/inboundQueue.ts), then the job fails; a dead worker's deliveries are taken up by another
 * through BullMQ's stalled-job check. `connection` retries forever (a worker connection).
 */
export function startInboundWorker(ports: InboundWorkerPorts, connection: Redis, prefix: string, timing: JobTiming = JOB_TIMING): InboundWorker {
  const { log } = ports;
  const worker = new Worker<unknown, DeliveryOutcome>(
    QUEUES.inbound,
    async (job: Job) => {
      const event = eventOf(job);
      if ("outcome" in event) return event;
      return outcomeOf(event, await ports.handle(event));
    },
    { connection, prefix, concurrency: CONCURRENCY, ...lockOptions(timing) },
    ClosableConnection,
  );
  worker.on("failed", (job, error) => log.warn({ queue: "inbound", job: job?.id, attempt: job?.attemptsMade, err: error }, "delivery failed"));
  worker.on("stalled", (id) => log.warn({ queue: "inbound", job: id }, "a stalled delivery (its worker died) is handled again"));
  worker.on("error", (error) => log.warn({ queue: "inbound", err: error }, "inbound worker error"));
  return {
    async close(deadlineMs: number) {
      await withDeadline(worker.close(), deadlineMs, () => new Error("the inbound worker did not finish in time")).catch(() => undefined);
    },
  };
}
