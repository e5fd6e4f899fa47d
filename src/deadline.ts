/**
 * Resolves with `work`, or rejects with `onTimeout()` after `ms`. Redis clients wait for a lost
 * connection to return, and BullMQ's close() has no deadline of its own: callers that must not
 * hang (a webhook response, a shutdown) put one around them.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
