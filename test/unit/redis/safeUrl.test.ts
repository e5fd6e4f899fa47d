import { describe, expect, it } from "vitest";
import { safeRedisUrl, unauthenticatedRedisWarning } from "../../../src/redis/safeUrl.js";

describe("the start-up warning about a Redis without a password", () => {
  it("names REDIS_URL, the risk and the fix when the URL has no password", () => {
    const warning = unauthenticatedRedisWarning("redis://127.0.0.1:6379/2");
    expect(warning).toMatch(/^REDIS_URL \(redis:\/\/127\.0\.0\.1:6379\/2\) has no password/);
    expect(warning).toMatch(/agents on this host could reach Redis and forge answers/);
    expect(warning).toMatch(/requirepass/);
  });

  it("says nothing when the URL carries a password, with or without a user", () => {
    expect(unauthenticatedRedisWarning("redis://:s3cret@127.0.0.1:6379")).toBeUndefined();
    expect(unauthenticatedRedisWarning("rediss://app:s3cret@redis.internal:6380")).toBeUndefined();
  });

  it("warns about a user without a password, and shows no secret", () => {
    expect(unauthenticatedRedisWarning("redis://app@127.0.0.1:6379")).toMatch(/has no password/);
  });
});

describe("safeRedisUrl", () => {
  it("hides the password as redis://:***@host:port", () => {
    expect(safeRedisUrl("redis://:s3cret@127.0.0.1:6379")).toBe("redis://:***@127.0.0.1:6379");
    expect(safeRedisUrl("redis://user:s3cret@127.0.0.1:6379")).toBe("redis://user:***@127.0.0.1:6379");
  });
});
