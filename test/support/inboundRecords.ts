import type { InboundQueue } from "../../src/queue/inboundQueue.js";

/** The deliveries the app's queue holds in any state: waiting, being handled, handled (within the hour) or failed. */
export async function deliveriesHeld(queue: InboundQueue): Promise<number> {
  const counts = await queue.getJobCounts();
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}
