import { describe, expect, it } from "vitest";
import { storeRedis } from "../../support/storeRedis.js";
import { REPO } from "./support.js";

const { redis, freshStore } = storeRedis();

describe("AccessCache: permission cache", () => {
  it("caches a permission per repo and login, case-insensitively, for the TTL", async () => {
    const store = freshStore();
    expect(await store.accessCache.cachedPermission(REPO, "Alice")).toBeNull();
    await store.accessCache.cachePermission(REPO, "Alice", "write", 1);
    expect(await store.accessCache.cachedPermission("octo/demo", "alice")).toBe("write");
    expect(await store.accessCache.cachedPermission(REPO, "bob")).toBeNull();
    const ttl = await redis().pttl(store.accessCache.permissionKey(REPO, "alice"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000);
    await new Promise((r) => setTimeout(r, 1_150));
    expect(await store.accessCache.cachedPermission(REPO, "Alice")).toBeNull();
  });

  it("a new value replaces the cached one with a fresh TTL", async () => {
    const store = freshStore();
    await store.accessCache.cachePermission(REPO, "carol", "read", 60);
    await store.accessCache.cachePermission(REPO, "carol", "admin", 120);
    expect(await store.accessCache.cachedPermission(REPO, "carol")).toBe("admin");
    expect(await redis().ttl(store.accessCache.permissionKey(REPO, "carol"))).toBeGreaterThan(60);
  });
});
