import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createRedis } from "../../../src/redis/redisUrl.js";

describe("a connection's writes, coalesced per tick", () => {
  let redis: Redis | undefined;
  afterEach(() => redis?.disconnect());

  const connect = async () => {
    redis = createRedis(inject("redisUrl"), { maxRetriesPerRequest: 1 });
    if (redis.status !== "ready") await once(redis, "ready");
    return redis;
  };

  it("holds the commands of one tick in the socket and sends them together, in order, on the next", async () => {
    const client = await connect();
    const key = `coalesce:${randomUUID()}`;
    const replies = [client.set(key, "1"), client.incr(key), client.get(key), client.del(key)];
    // Nothing went to the kernel yet: the socket is corked and holds all four commands.
    expect(client.stream.writableCorked).toBe(1);
    expect(client.stream.writableLength).toBeGreaterThan(0);
    expect(await Promise.all(replies)).toEqual(["OK", 2, "2", 1]);
    expect(client.stream.writableCorked).toBe(0);
    expect(client.stream.writableLength).toBe(0);
  });

  it("coalesces the writes of a new socket after a reconnect", async () => {
    const client = await connect();
    const first = client.stream;
    client.disconnect(true);
    await once(client, "ready");
    expect(client.stream).not.toBe(first);
    const reply = client.ping();
    expect(client.stream.writableCorked).toBe(1);
    expect(await reply).toBe("PONG");
  });
});
