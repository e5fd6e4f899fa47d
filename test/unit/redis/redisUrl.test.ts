import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config/env.js";
import { ConfigError } from "../../../src/errors.js";
import { createRedis, parseRedisUrl, type ParsedRedisUrl } from "../../../src/redis/redisUrl.js";
import { safeRedisUrl, unauthenticatedRedisWarning } from "../../../src/redis/safeUrl.js";

const endpoint = (url: string) => {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) throw new Error(`expected ${url} to parse: ${parsed.problem}`);
  return parsed.endpoint;
};
const problem = (url: string) => {
  const parsed: ParsedRedisUrl = parseRedisUrl(url);
  if (parsed.ok) throw new Error(`expected ${url} to be refused`);
  return parsed.problem;
};

describe("REDIS_URL: one server", () => {
  it("passes redis:// and rediss:// to ioredis as they are", () => {
    expect(endpoint("redis://:pw@127.0.0.1:6379/2")).toEqual({ kind: "server", url: "redis://:pw@127.0.0.1:6379/2" });
    expect(endpoint("rediss://app:pw@redis.internal:6380")).toEqual({ kind: "server", url: "rediss://app:pw@redis.internal:6380" });
    expect(endpoint("redis://localhost:6379?family=6").kind).toBe("server");
  });

  it("refuses a path that is not a database, unix sockets and other schemes, naming the accepted forms", () => {
    expect(problem("redis://127.0.0.1:6379/x")).toMatch(/not a database number/);
    expect(problem("unix:///run/redis.sock")).toMatch(/^must be redis:\/\/, rediss:\/\/ or redis\+sentinel:\/\/.*unix sockets are not supported/);
    expect(problem("http://127.0.0.1:6379")).toMatch(/^must be redis:\/\//);
  });
});

describe("REDIS_URL: Sentinel", () => {
  it("reads the Sentinels, the master's name, its database and both passwords", () => {
    expect(endpoint("redis+sentinel://app:p%40ss@10.0.0.1:26379,[::1]:26380,sentinel-3/mymaster/3?sentinelPassword=s%26p&sentinelUsername=watch")).toEqual({
      kind: "sentinel",
      options: {
        sentinels: [
          { host: "10.0.0.1", port: 26379 },
          { host: "::1", port: 26380 },
          { host: "sentinel-3", port: 26379 },
        ],
        name: "mymaster",
        db: 3,
        username: "app",
        password: "p@ss",
        sentinelUsername: "watch",
        sentinelPassword: "s&p",
      },
    });
  });

  it("takes a password without a user, and no credentials at all, with database 0 by default", () => {
    expect(endpoint("redis+sentinel://:pw@127.0.0.1:26379/mymaster")).toEqual({
      kind: "sentinel",
      options: { sentinels: [{ host: "127.0.0.1", port: 26379 }], name: "mymaster", db: 0, password: "pw" },
    });
    expect(endpoint("redis+sentinel://127.0.0.1:26379/mymaster/")).toEqual({
      kind: "sentinel",
      options: { sentinels: [{ host: "127.0.0.1", port: 26379 }], name: "mymaster", db: 0 },
    });
  });

  it.each([
    ["no master name", "redis+sentinel://:pw@127.0.0.1:26379", /not a well-formed Sentinel URL/],
    ["no host", "redis+sentinel://:pw@/mymaster", /not a well-formed Sentinel URL/],
    ["an empty address in the list", "redis+sentinel://:pw@127.0.0.1:26379,,h:1/mymaster", /not HOST:PORT/],
    ["a port out of range", "redis+sentinel://:pw@127.0.0.1:70000/mymaster", /port outside 1-65535/],
    ["a database that is not a number", "redis+sentinel://:pw@127.0.0.1:26379/mymaster/x", /database that is not a number/],
    ["an unknown parameter", "redis+sentinel://:pw@127.0.0.1:26379/mymaster?sentinelPasswd=topsecret", /unknown parameter "sentinelPasswd"/],
    ["a bad percent-encoding", "redis+sentinel://:p%zz@127.0.0.1:26379/mymaster", /bad percent-encoding/],
  ])("refuses %s with the expected form, in one line, without its secrets", (_what, url, why) => {
    const text = problem(url);
    expect(text).toMatch(why);
    expect(text).toContain("a Sentinel URL looks like redis+sentinel://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT…]/MASTER_NAME[/DB]");
    expect(text).not.toMatch(/\n/);
    expect(text).not.toMatch(/pw|topsecret|p%zz/);
  });

  it("refuses TLS to Sentinel and Redis Cluster, saying what to use instead", () => {
    expect(problem("rediss+sentinel://:pw@h:26379/mymaster")).toMatch(
      /TLS to Sentinel .* not supported: use redis\+sentinel:\/\/ .* or a single server over TLS \(rediss:\/\/\)/,
    );
    expect(problem("redis+cluster://:pw@h:7000,h:7001")).toMatch(
      /Redis Cluster is not supported: the gate store's Lua scripts build keys from their arguments.*Use a single Redis server \(redis:\/\/\) or Sentinel/,
    );
  });
});

describe("REDIS_URL in logs", () => {
  it("hides the master's and the Sentinels' passwords", () => {
    const url = "redis+sentinel://app:hunter2@127.0.0.1:26379,[::1]:26380/mymaster/1?sentinelPassword=sekret&sentinelUsername=watch";
    expect(safeRedisUrl(url)).toBe("redis+sentinel://app:***@127.0.0.1:26379,[::1]:26380/mymaster/1?sentinelUsername=watch&sentinelPassword=***");
    expect(safeRedisUrl("redis://:hunter2@127.0.0.1:6379")).toBe("redis://:***@127.0.0.1:6379");
  });

  it("warns about a Sentinel URL whose master takes no password, and not about one with it", () => {
    expect(unauthenticatedRedisWarning("redis+sentinel://127.0.0.1:26379/mymaster?sentinelPassword=s")).toMatch(
      /^REDIS_URL \(redis\+sentinel:\/\/127\.0\.0\.1:26379\/mymaster\?sentinelPassword=\*\*\*\) has no password/,
    );
    expect(unauthenticatedRedisWarning("redis+sentinel://:pw@127.0.0.1:26379/mymaster")).toBeUndefined();
  });

  it("gives ioredis the Sentinel options, not the URL", () => {
    const redis = createRedis("redis+sentinel://:pw@127.0.0.1:26379/mymaster/2?sentinelPassword=s", { lazyConnect: true });
    expect(redis.options).toMatchObject({ sentinels: [{ host: "127.0.0.1", port: 26379 }], name: "mymaster", db: 2, password: "pw", sentinelPassword: "s" });
    redis.disconnect();
  });
});

describe("loadConfig: REDIS_URL and REDIS_PREFIX", () => {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
  const env = (over: NodeJS.ProcessEnv) => ({ APP_ID: "1", WEBHOOK_SECRET: "hook", PRIVATE_KEY: privateKey, ...over });
  const refusal = (over: NodeJS.ProcessEnv) => {
    try {
      loadConfig(env(over), "linux");
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error("loadConfig did not throw");
  };

  it("keeps a Sentinel URL with several Sentinels (a plain URL check refuses it)", () => {
    const url = "redis+sentinel://:pw@127.0.0.1:26379,127.0.0.1:26380/mymaster";
    expect(loadConfig(env({ REDIS_URL: url }), "linux").redisUrl).toBe(url);
  });

  it("refuses a malformed Sentinel URL at start in one line with the expected form and no password", () => {
    const message = refusal({ REDIS_URL: "redis+sentinel://:hunter2@127.0.0.1:26379" });
    expect(message).toMatch(/^Invalid environment: REDIS_URL: is not a well-formed Sentinel URL; a Sentinel URL looks like redis\+sentinel:\/\//);
    expect(message).not.toMatch(/\n|hunter2/);
  });

  it("refuses a hash-tagged REDIS_PREFIX, saying Cluster is not supported", () => {
    expect(refusal({ REDIS_PREFIX: "{escalation}" })).toMatch(
      /REDIS_PREFIX: must be 1-40 letters, digits, _ or - \(a hash tag \{…\} is refused: Redis Cluster is not supported\)/,
    );
  });
});
