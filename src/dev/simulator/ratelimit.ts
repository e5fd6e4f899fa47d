/**
 * Rate-limit headers per credential and hourly window. The numbers are reported but never enforced:
 * end-to-end runs and benchmarks must not stall on a limit that only exists to look like GitHub.
 */

const AUTHENTICATED_LIMIT = 15_000;
const ANONYMOUS_LIMIT = 60;
const WINDOW_MS = 60 * 60 * 1000;

export class RateMeter {
  private readonly windows = new Map<string, { resetAt: number; used: number }>();

  /** Counts one request for `credential` (undefined: anonymous) and returns the headers to send. */
  consume(credential: string | undefined): Record<string, string> {
    const key = credential ?? "anonymous";
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { resetAt: now + WINDOW_MS, used: 0 };
      this.windows.set(key, window);
    }
    window.used += 1;
    const limit = credential === undefined ? ANONYMOUS_LIMIT : AUTHENTICATED_LIMIT;
    return {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": String(Math.max(0, limit - window.used)),
      "x-ratelimit-reset": String(Math.ceil(window.resetAt / 1000)),
      "x-ratelimit-used": String(window.used),
      "x-ratelimit-resource": "core",
    };
  }
}
