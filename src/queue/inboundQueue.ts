import { Queue, type Job, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import { ClosableConnection } from "./closableConnection.js";
import { KEEP_FAILED, KEEP_RECENT } from "./jobRetention.js";
import { jobIds, QUEUES } from "../queueNames.js";
import { InboundEventSchema, type InboundEvent } from "../payloads.js";

/** A redelivery within this long of the first is refused (GitHub's redeliveries come within days; a delivery id is unique). */
const DEDUPLICATE_MS = 24 * 3600 * 1000;

/** What the inbound worker made of a delivery: no text of the event, only what it was about. */
export interface DeliveryOutcome {
  delivery: string;
  kind: InboundEvent["kind"];
  repo: string;
  issue: number;
  /** The reply's id, for a comment event. */
  comment?: number;
  /** describeOutcome's words ("answer recorded", "ignored: …"). */
  outcome: string;
}

/** What stands in a delivery's job once its text was withdrawn (src/gates/withdrawals.ts): what it was about, no text. */
export const WithdrawnDeliverySchema = z.object({
  withdrawn: z.literal(true),
  deliveryId: z.string(),
  kind: z.string(),
  repo: z.string(),
  issue: z.number(),
});
export type WithdrawnDelivery = z.infer<typeof WithdrawnDeliverySchema>;

/** The webhook deliveries' queue: a BullMQ queue named `inbound`, a job per acknowledged delivery, its outcome the job's return value. */
export type InboundQueue = Queue<InboundEvent | WithdrawnDelivery, DeliveryOutcome>;

/** The deliveries' queue on `connection` under `prefix`. */
export function openInboundQueue(connection: Redis, prefix: string): InboundQueue {
  return new Queue<InboundEvent | WithdrawnDelivery, DeliveryOutcome>(QUEUES.inbound, { connection, prefix }, ClosableConnection);
}

/**
 * A delivery's job options. Its deduplication id, the delivery id, refuses a redelivery for 24 h,
 * also once the job is gone. Handled, the job (its event, its outcome) is kept an hour, at most the
 * newest 1,000; failed, a week. A failing handling is tried five times, 1, 2, 4 and 8 s apart.
 */
export function deliveryJobOptions(deliveryId: string, backoffMs = 1000): JobsOptions {
  return {
    jobId: jobIds.delivery(deliveryId),
    deduplication: { id: deliveryId, ttl: DEDUPLICATE_MS },
    attempts: 5,
    backoff: { type: "exponential", delay: backoffMs },
    removeOnComplete: KEEP_RECENT,
    removeOnFail: KEEP_FAILED,
  };
}

/** Queues an acknowledged delivery; a redelivery within 24 h is the same job. */
export async function addDelivery(queue: InboundQueue, event: InboundEvent): Promise<void> {
  await queue.add(event.kind, event, deliveryJobOptions(event.deliveryId));
}

/** Whether delivery `deliveryId` was queued within the last 24 h. */
export async function deliveryRecorded(queue: InboundQueue, deliveryId: string): Promise<boolean> {
  return (await queue.getDeduplicationJobId(deliveryId)) !== null;
}

/**
 * Takes a withdrawn text out of the delivery that brought it, in whatever state its job is: waiting
 * or due for a retry, it is then dropped unhandled; handled or failed, it keeps what it was about.
 * 1 when there was a job.
 */
export async function forgetDelivery(queue: InboundQueue, deliveryId: string): Promise<number> {
  const job: Job<InboundEvent | WithdrawnDelivery> | undefined = await queue.getJob(jobIds.delivery(deliveryId));
  if (!job) return 0;
  const data = job.data;
  if ("withdrawn" in data) return 1;
  await job.updateData({ withdrawn: true, deliveryId, kind: data.kind, repo: data.repo, issue: data.issue.number });
  return 1;
}

/** A delivery's event as its job keeps it (an hour once handled): undefined when the job is gone or its text was withdrawn. */
export async function deliveredEvent(queue: InboundQueue, deliveryId: string): Promise<InboundEvent | undefined> {
  const job: Job<InboundEvent | WithdrawnDelivery> | undefined = await queue.getJob(jobIds.delivery(deliveryId));
  const parsed = InboundEventSchema.safeParse(job?.data);
  return parsed.success ? parsed.data : undefined;
}

/** The latest outcomes (handled within the hour), newest first. */
export async function deliveryOutcomes(queue: InboundQueue, count = 1000): Promise<DeliveryOutcome[]> {
  const jobs = await queue.getCompleted(0, count - 1);
  return jobs.flatMap((job) => (job?.returnvalue ? [job.returnvalue] : []));
}
