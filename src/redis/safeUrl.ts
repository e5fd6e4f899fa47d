import { parseRedisUrl, redactedRedisUrl, redisPassword } from "./redisUrl.js";

/** The Redis URL with its passwords replaced by `***` (`redis://:***@host:port`): the only form fit for a log line or message. */
export function safeRedisUrl(url: string): string {
  const parsed = parseRedisUrl(url);
  return parsed.ok ? redactedRedisUrl(parsed.endpoint) : "(unparseable REDIS_URL)";
}

/**
 * One start-up warning when the app's Redis takes no password: any process on this host (an agent
 * included) that can reach it could record an answer or an approval no human gave.
 */
export function unauthenticatedRedisWarning(url: string): string | undefined {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) return undefined; // loadConfig has already rejected it
  if (redisPassword(parsed.endpoint)) return undefined;
  return `REDIS_URL (${safeRedisUrl(url)}) has no password: agents on this host could reach Redis and forge answers or approvals. Set requirepass on the server and put the password in REDIS_URL (redis://:PASSWORD@host:6379), or unset REDIS_URL to use the app's own password-protected redis-server.`;
}
