import { describe, expect, it } from "vitest";
import { DEFAULT_PAUSE_SECONDS, GITHUB_CONTENT_LIMITS, limitSignalOf, MAX_PAUSE_SECONDS, pauseMs } from "../../../src/github/writeBudget.js";

const SECONDARY =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID C0DE:1A2B.";

/** An Octokit RequestError as the app sees it. */
const failure = (status: number, message: string, headers: Record<string, string> = {}) =>
  Object.assign(new Error(message), { status, response: { headers, data: { message } } });

describe("pauseMs: how long the app stops writing after GitHub limited it", () => {
  const noJitter = () => 0;
  const fullJitter = () => 0.999;

  it("waits what GitHub asked, at least a minute when it did not say", () => {
    expect(pauseMs(30, 1, noJitter)).toBe(30_000);
    expect(pauseMs(undefined, 1, noJitter)).toBe(DEFAULT_PAUSE_SECONDS * 1000);
    expect(DEFAULT_PAUSE_SECONDS).toBeGreaterThanOrEqual(60);
  });

  it("doubles for each limit in a row, up to an hour, never less than GitHub asked", () => {
    expect([1, 2, 3, 4].map((strikes) => pauseMs(60, strikes, noJitter))).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(pauseMs(60, 30, noJitter)).toBe(MAX_PAUSE_SECONDS * 1000);
    expect(pauseMs(7200, 5, noJitter)).toBe(7_200_000); // GitHub asked for more than the cap
  });

  it("adds up to 20 % jitter, never less than asked", () => {
    const samples = Array.from({ length: 200 }, () => pauseMs(10, 1));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(10_000);
    expect(Math.max(...samples)).toBeLessThanOrEqual(12_000);
    expect(new Set(samples).size).toBeGreaterThan(1);
    expect(pauseMs(10, 1, fullJitter)).toBeLessThanOrEqual(12_000);
  });
});

describe("limitSignalOf: reading GitHub's answer for a rate limit", () => {
  it("GitHub's secondary-limit message, on 403 or 429, with or without retry-after", () => {
    expect(limitSignalOf(failure(403, SECONDARY, { "retry-after": "42" }))).toEqual({ kind: "secondary", retryAfterSeconds: 42 });
    expect(limitSignalOf(failure(403, SECONDARY))).toEqual({ kind: "secondary", retryAfterSeconds: undefined });
    expect(limitSignalOf(failure(429, "Too Many Requests", { "retry-after": "5" }))).toEqual({ kind: "secondary", retryAfterSeconds: 5 });
    expect(limitSignalOf(failure(429, "Too Many Requests"))).toEqual({ kind: "secondary", retryAfterSeconds: undefined });
    expect(limitSignalOf(failure(403, "You have triggered an abuse detection mechanism."))).toMatchObject({ kind: "secondary" });
  });

  it("a 403 with retry-after is a limit whatever its message", () => {
    expect(limitSignalOf(failure(403, "Forbidden", { "retry-after": "60", "x-ratelimit-remaining": "4000" }))).toEqual({
      kind: "secondary",
      retryAfterSeconds: 60,
    });
  });

  it("the primary limit: remaining 0, wait until the reset", () => {
    const now = Date.parse("2025-01-01T12:00:00Z");
    const reset = String(now / 1000 + 120);
    expect(limitSignalOf(failure(403, "API rate limit exceeded", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }), now)).toEqual({
      kind: "primary",
      retryAfterSeconds: 121,
    });
  });

  it("a 403 for want of permission, a 404 or a 500 is no limit", () => {
    expect(limitSignalOf(failure(403, "Resource not accessible by integration", { "x-ratelimit-remaining": "4999" }))).toBeUndefined();
    expect(limitSignalOf(failure(404, "Not Found"))).toBeUndefined();
    expect(limitSignalOf(failure(500, SECONDARY))).toBeUndefined();
    expect(limitSignalOf(new Error("socket hang up"))).toBeUndefined();
    expect(limitSignalOf(undefined)).toBeUndefined();
  });

  it("the defaults stay well under GitHub's content limits", () => {
    expect(GITHUB_CONTENT_LIMITS).toEqual({ perMinute: 80, perHour: 500 });
  });
});
