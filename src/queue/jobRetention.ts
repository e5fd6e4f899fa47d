import type { KeepJobs } from "bullmq";

/** How long BullMQ keeps a job once it ended: the one place the queues' retention is set. */

/** Completed jobs whose ids deduplicate (an answer's round, a timeout, a Slack post): a day, long enough for a redelivery or a retry to find them. */
export const KEEP_DEDUPLICATING: KeepJobs = { age: 24 * 3600, count: 50_000 };
/** Completed jobs kept for an operator to read (a delivery's outcome, a lane's writes): an hour, at most the newest 1,000. */
export const KEEP_RECENT: KeepJobs = { age: 3600, count: 1000 };
/** Failed jobs, with their data and last error: a week. */
export const KEEP_FAILED: KeepJobs = { age: 7 * 24 * 3600 };
