import { getTransformStream } from "@probot/pino";
import { pino, type Logger } from "pino";

/** Paths pino blanks in every log line: tokens and keys must never reach a log. */
export const REDACT_PATHS = [
  "token",
  "*.token",
  "privateKey",
  "*.privateKey",
  "secret",
  "*.secret",
  "env.GITHUB_TOKEN",
  "req.headers.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "request.headers.authorization",
];

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

/** The same logger Probot builds (pretty in development, JSON with LOG_FORMAT=json), plus redaction. */
export async function createLogger(level: LogLevel, env: NodeJS.ProcessEnv = process.env): Promise<Logger> {
  const logFormat = env.LOG_FORMAT === "json" || (!env.LOG_FORMAT && env.NODE_ENV === "production") ? "json" : "pretty";
  const transform = await getTransformStream({ logFormat, logLevelInString: env.LOG_LEVEL_IN_STRING === "true" });
  transform.pipe(pino.destination(1) as unknown as NodeJS.WritableStream);
  return pino({ level, name: "escalation", redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, transform);
}
