import { Redis, type RedisOptions } from "ioredis";
import { z } from "zod";
import { ConfigError } from "../errors.js";
import { coalesceWrites } from "./coalesceWrites.js";

/**
 * REDIS_URL's forms, and the only code that knows them. `redis://` and `rediss://` (TLS) name one
 * server and go to ioredis as they are (it reads their query options too); `redis+sentinel://`
 * names the Sentinels that know the master, which ioredis asks for it at every (re)connect.
 */
export const SENTINEL_FORM = "redis+sentinel://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT…]/MASTER_NAME[/DB][?sentinelPassword=…]";

/** Why Redis Cluster is refused, for the URL check and for a server found to be in cluster mode. */
export const CLUSTER_UNSUPPORTED =
  "Redis Cluster is not supported: the gate store's Lua scripts build keys from their arguments, which a cluster cannot route to one slot. Use a single Redis server (redis://) or Sentinel for failover (redis+sentinel://).";

const DEFAULT_SENTINEL_PORT = 26379;

export interface SentinelOptions {
  sentinels: { host: string; port: number }[];
  name: string;
  username?: string;
  password?: string;
  sentinelUsername?: string;
  sentinelPassword?: string;
  db: number;
}

export type RedisEndpoint = { kind: "server"; url: string } | { kind: "sentinel"; options: SentinelOptions };

export type ParsedRedisUrl = { ok: true; endpoint: RedisEndpoint } | { ok: false; problem: string };

const port = z.coerce.number().int().min(1).max(65_535);
const SentinelAddress = z.object({ host: z.string().min(1), port });
const SentinelParts = z.object({
  sentinels: z.array(SentinelAddress).min(1),
  name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  db: z.coerce.number().int().min(0).max(1_000_000),
  username: z.string().optional(),
  password: z.string().optional(),
  sentinelUsername: z.string().optional(),
  sentinelPassword: z.string().optional(),
});

/** Userinfo, hosts, master name, optional db, optional query: no part may hold a `/`, `@` or `?` of its own (percent-encode them). */
const SENTINEL_SHAPE = /^redis\+sentinel:\/\/(?:([^@/?#]*)@)?([^@/?#]+)\/([^/?#]+)(?:\/([^/?#]*))?\/?(?:\?([^#]*))?$/i;
const SENTINEL_QUERY = new Set(["sentinelPassword", "sentinelUsername"]);

function decoded(text: string | undefined): string | undefined {
  if (text === undefined || text === "") return undefined;
  return decodeURIComponent(text);
}

/** One `host:port` of the list; `[v6]:port` for IPv6; the port defaults to Sentinel's 26379. */
function sentinelAddress(text: string): { host: string; port: string | number } | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+))(?::(\d*))?$/.exec(text);
  if (!match) return undefined;
  return { host: match[1] ?? match[2]!, port: match[3] || DEFAULT_SENTINEL_PORT };
}

function parseSentinel(url: string): ParsedRedisUrl {
  const malformed = (why: string): ParsedRedisUrl => ({ ok: false, problem: `${why}; a Sentinel URL looks like ${SENTINEL_FORM}` });
  const match = SENTINEL_SHAPE.exec(url);
  if (!match) return malformed("is not a well-formed Sentinel URL");
  const [, userinfo, hostList, name, db, query] = match;
  const addresses = hostList!.split(",").map(sentinelAddress);
  if (addresses.some((a) => a === undefined)) return malformed("has a Sentinel address that is not HOST:PORT");
  let username: string | undefined;
  let password: string | undefined;
  const params: Record<string, string> = {};
  try {
    if (userinfo !== undefined) {
      const colon = userinfo.indexOf(":");
      username = decoded(colon === -1 ? userinfo : userinfo.slice(0, colon));
      password = colon === -1 ? undefined : decoded(userinfo.slice(colon + 1));
    }
    for (const [key, value] of new URLSearchParams(query ?? "")) {
      if (!SENTINEL_QUERY.has(key)) return malformed(`has the unknown parameter ${JSON.stringify(key)} (only sentinelPassword and sentinelUsername are read)`);
      params[key] = value;
    }
  } catch {
    return malformed("has a bad percent-encoding");
  }
  const parts = SentinelParts.safeParse({ sentinels: addresses, name, db: db || 0, username, password, ...params });
  if (!parts.success) {
    const field = String(parts.error.issues[0]?.path[0] ?? "");
    const what =
      {
        sentinels: "has a Sentinel port outside 1-65535",
        name: "has a master name that is not 1-100 letters, digits, ., _ or -",
        db: "has a database that is not a number",
      }[field] ?? "is not a well-formed Sentinel URL";
    return malformed(what);
  }
  const options: SentinelOptions = { sentinels: parts.data.sentinels, name: parts.data.name, db: parts.data.db };
  for (const key of ["username", "password", "sentinelUsername", "sentinelPassword"] as const) {
    if (parts.data[key] !== undefined) options[key] = parts.data[key];
  }
  return { ok: true, endpoint: { kind: "sentinel", options } };
}

function parseServer(url: string): ParsedRedisUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, problem: "is not a URL; use redis://[[USER]:PASSWORD@]HOST:PORT[/DB]" };
  }
  if (!parsed.hostname) return { ok: false, problem: "has no host; use redis://[[USER]:PASSWORD@]HOST:PORT[/DB]" };
  if (!/^\/?(\d+)?$/.test(parsed.pathname))
    return { ok: false, problem: "has a path that is not a database number; use redis://[[USER]:PASSWORD@]HOST:PORT[/DB]" };
  return { ok: true, endpoint: { kind: "server", url } };
}

/** Reads REDIS_URL. Problems are phrased to follow "REDIS_URL " and never quote the URL (it may hold a password). */
export function parseRedisUrl(url: string): ParsedRedisUrl {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case "redis":
    case "rediss":
      return parseServer(url);
    case "redis+sentinel":
      return parseSentinel(url);
    case "rediss+sentinel":
      return {
        ok: false,
        problem:
          "asks for TLS to Sentinel (rediss+sentinel://), which is not supported: use redis+sentinel:// on a trusted network, or a single server over TLS (rediss://)",
      };
    case "redis+cluster":
    case "rediss+cluster":
      return { ok: false, problem: `names a cluster. ${CLUSTER_UNSUPPORTED}` };
    default:
      return { ok: false, problem: `must be redis://, rediss:// or ${SENTINEL_FORM} (unix sockets are not supported)` };
  }
}

/** REDIS_URL checked at the boundary: the string as given, refused with the expected form when malformed. */
export const RedisUrlSchema = z.string().superRefine((url, ctx) => {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.problem });
});

/** A REDIS_URL the start-up checks let through, then found malformed: a programming error, said without the URL. */
export function redisEndpoint(url: string): RedisEndpoint {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) throw new ConfigError(`REDIS_URL ${parsed.problem}.`);
  return parsed.endpoint;
}

/** The URL with every password replaced by `***`: the only form fit for a log line or message. */
export function redactedRedisUrl(endpoint: RedisEndpoint): string {
  if (endpoint.kind === "server") {
    const parsed = new URL(endpoint.url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  }
  const o = endpoint.options;
  const user = o.username !== undefined || o.password !== undefined ? `${o.username ?? ""}${o.password !== undefined ? ":***" : ""}@` : "";
  const hosts = o.sentinels.map((s) => `${s.host.includes(":") ? `[${s.host}]` : s.host}:${s.port}`).join(",");
  const query = [
    o.sentinelUsername !== undefined ? `sentinelUsername=${encodeURIComponent(o.sentinelUsername)}` : "",
    o.sentinelPassword !== undefined ? "sentinelPassword=***" : "",
  ]
    .filter(Boolean)
    .join("&");
  return `redis+sentinel://${user}${hosts}/${o.name}${o.db ? `/${o.db}` : ""}${query ? `?${query}` : ""}`;
}

/** The password the app's commands authenticate with (the master's, for Sentinel); "" when none. */
export function redisPassword(endpoint: RedisEndpoint): string {
  return endpoint.kind === "server" ? new URL(endpoint.url).password : (endpoint.options.password ?? "");
}

/**
 * A client for REDIS_URL with `options` (timeouts, retries). Through Sentinel it asks the Sentinels
 * for the master at every connect, checks the role of what it reached, and on a write refused by a
 * demoted master (READONLY) reconnects and sends it again, to the new master. Every client sends
 * the commands of one tick in one socket write (coalesceWrites.ts).
 */
export function createRedis(url: string, options: RedisOptions): Redis {
  const endpoint = redisEndpoint(url);
  if (endpoint.kind === "server") return coalesceWrites(new Redis(endpoint.url, options));
  return coalesceWrites(new Redis({ ...endpoint.options, reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false), ...options }));
}
