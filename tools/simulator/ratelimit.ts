/**
 * GitHub's primary rate limits, counted per caller (an installation, whatever its token; a user; the
 * App's JWT) and resource as GitHub counts them: `core` 5,000 requests an hour, `graphql` 5,000 an
 * hour (a point a query here), `search` 30 a minute; 60 an hour without credentials. Each response
 * carries the caller's headers, counting down until the window resets. The numbers are reported but
 * never enforced: end-to-end runs and benchmarks must not stall on a limit that only exists to look
 * like GitHub. The secondary limit on content creation (ContentLimiter, below) is enforced when a
 * test sets limits or trips it.
 */

export type RateResource = "core" | "graphql" | "search";

const LIMITS: Record<RateResource, { limit: number; windowMs: number }> = {
  core: { limit: 5000, windowMs: 3600_000 },
  graphql: { limit: 5000, windowMs: 3600_000 },
  search: { limit: 30, windowMs: 60_000 },
};
const ANONYMOUS = { limit: 60, windowMs: 3600_000 };

/** One caller's budget of one resource, as `GET /rate_limit` reports it. */
export interface RateBudget {
  limit: number;
  remaining: number;
  used: number;
  /** Epoch seconds when the window resets. */
  reset: number;
}

export class RateMeter {
  private readonly windows = new Map<string, { resetAt: number; used: number }>();

  /** Counts one request of `caller` (undefined: anonymous) and returns the headers to send. */
  consume(caller: string | undefined, resource: RateResource): Record<string, string> {
    const budget = this.count(caller, resource, 1);
    return {
      "x-ratelimit-limit": String(budget.limit),
      "x-ratelimit-remaining": String(budget.remaining),
      "x-ratelimit-reset": String(budget.reset),
      "x-ratelimit-used": String(budget.used),
      "x-ratelimit-resource": resource,
    };
  }

  /** What is left of `caller`'s budget, without spending any. */
  budget(caller: string | undefined, resource: RateResource): RateBudget {
    return this.count(caller, resource, 0);
  }

  private count(caller: string | undefined, resource: RateResource, requests: number): RateBudget {
    const { limit, windowMs } = caller === undefined ? ANONYMOUS : LIMITS[resource];
    const key = `${caller ?? "anonymous"} ${resource}`;
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { resetAt: now + windowMs, used: 0 };
      if (requests > 0) this.windows.set(key, window);
    }
    window.used += requests;
    return { limit, remaining: Math.max(0, limit - window.used), used: window.used, reset: Math.ceil(window.resetAt / 1000) };
  }
}

/** How GitHub words a secondary rate limit (followed by the request's id). */
export const SECONDARY_LIMIT_MESSAGE =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID";
export const SECONDARY_LIMIT_DOCS = "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits";

/** Content-creating requests: comments, reactions, labels, edits, new issues (not tokens, not reads). */
export function isContentCreating(method: string, template: string): boolean {
  if (method === "GET" || method === "HEAD") return false;
  return /^\/repos\/\{owner\}\/\{repo\}\/issues(\/|$)/.test(template);
}

/** Per-caller budgets the simulator enforces on content-creating requests, as GitHub's secondary limit does. */
export interface ContentLimits {
  perMinute: number;
  perHour: number;
  /** Window lengths; default a minute and an hour (tests shorten them). */
  minuteMs?: number;
  hourMs?: number;
  /** What `retry-after` says when a budget is exceeded (default 60); null sends none (GitHub then means "at least a minute"). */
  retryAfterSeconds?: number | null;
  /** GitHub answers 403, sometimes 429. */
  status?: 403 | 429;
}

/** One content-creating request, accepted or refused. */
export interface ContentWrite {
  at: number;
  /** "installation:ID", "user:LOGIN" or "app". */
  caller: string;
  route: string;
  /** 0 when accepted (the handler's own status is in `calls`), else the refusal's status. */
  refused: number;
  /** Sent while GitHub had told the caller to wait: what gets an integration banned. */
  whileLimited: boolean;
}

export interface Refusal {
  status: 403 | 429;
  message: string;
  headers: Record<string, string>;
}

/**
 * GitHub's secondary limit on content creation: a sliding minute and hour per caller. Off unless
 * limits are set (or a refusal is forced with `trip`), so other tests never stall on it. A refused
 * caller is told to wait (`retry-after`); each write it sends before then is refused again and
 * marked `whileLimited`.
 */
export class ContentLimiter {
  limits: ContentLimits | undefined;
  /** Every content-creating request, in arrival order. */
  readonly writes: ContentWrite[] = [];
  private readonly accepted = new Map<string, number[]>();
  private readonly embargo = new Map<string, { until: number; retryAfterSeconds: number | null; status: 403 | 429 }>();
  private readonly trips: Array<{ caller?: string; retryAfterSeconds: number | null; status: 403 | 429 }> = [];

  /** The next content-creating request (of `caller`, or anyone's) is refused with a secondary limit. */
  trip(options: { caller?: string; retryAfterSeconds?: number | null; status?: 403 | 429 } = {}): void {
    this.trips.push({
      caller: options.caller,
      retryAfterSeconds: options.retryAfterSeconds === undefined ? 60 : options.retryAfterSeconds,
      status: options.status ?? 403,
    });
  }

  /** Admits one content-creating request, or returns the refusal to send. */
  admit(caller: string, route: string, requestId: string, now = Date.now()): Refusal | undefined {
    const held = this.embargo.get(caller);
    if (held && held.until > now) {
      this.writes.push({ at: now, caller, route, refused: held.status, whileLimited: true });
      return refusal(held.status, held.retryAfterSeconds === null ? null : Math.ceil((held.until - now) / 1000), requestId);
    }
    const tripIndex = this.trips.findIndex((t) => t.caller === undefined || t.caller === caller);
    if (tripIndex >= 0) {
      const [trip] = this.trips.splice(tripIndex, 1);
      return this.refuse(caller, route, requestId, trip!.retryAfterSeconds, trip!.status, now);
    }
    const limits = this.limits;
    const times = this.accepted.get(caller) ?? [];
    if (limits) {
      const minuteMs = limits.minuteMs ?? 60_000;
      const hourMs = limits.hourMs ?? 3_600_000;
      while (times.length > 0 && times[0]! <= now - hourMs) times.shift();
      const inMinute = times.filter((t) => t > now - minuteMs).length;
      if (inMinute >= limits.perMinute || times.length >= limits.perHour) {
        return this.refuse(caller, route, requestId, limits.retryAfterSeconds === undefined ? 60 : limits.retryAfterSeconds, limits.status ?? 403, now);
      }
    }
    times.push(now);
    this.accepted.set(caller, times);
    this.writes.push({ at: now, caller, route, refused: 0, whileLimited: false });
    return undefined;
  }

  private refuse(caller: string, route: string, requestId: string, retryAfterSeconds: number | null, status: 403 | 429, now: number): Refusal {
    const waitSeconds = retryAfterSeconds ?? 60;
    this.embargo.set(caller, { until: now + waitSeconds * 1000, retryAfterSeconds, status });
    this.writes.push({ at: now, caller, route, refused: status, whileLimited: false });
    return refusal(status, retryAfterSeconds, requestId);
  }
}

function refusal(status: 403 | 429, retryAfterSeconds: number | null, requestId: string): Refusal {
  return {
    status,
    message: `${SECONDARY_LIMIT_MESSAGE} ${requestId}.`,
    headers: retryAfterSeconds === null ? {} : { "retry-after": String(Math.max(1, retryAfterSeconds)) },
  };
}
