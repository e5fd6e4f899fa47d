/**
 * Typed errors. Each message says what went wrong and what to do next; `cause` keeps the original.
 */
export class EscalationError extends Error {
  override name = "EscalationError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A configuration value (env var, CLI flag or config file key) is missing or invalid. */
export class ConfigError extends EscalationError {
  override name = "ConfigError";
}

/** Text from outside (a comment, a marker, a payload) does not have the shape we need. */
export class ProtocolError extends EscalationError {
  override name = "ProtocolError";
}

/** A call to GitHub failed; `status` is GitHub's HTTP status when there was one. */
export class GitHubError extends EscalationError {
  override name = "GitHubError";
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Redis or the queue could not be reached; the caller should fail loudly so the event is retried. */
export class StoreUnavailableError extends EscalationError {
  override name = "StoreUnavailableError";
}

/** The agent process could not be started or ended badly. */
export class AgentError extends EscalationError {
  override name = "AgentError";
}

/**
 * The agent's checkout could not be prepared or its work not saved. `refused`: GitHub refused the
 * token (a permission the installation lacks); `limit`: the round's changes exceed a limit.
 */
export class WorkspaceError extends EscalationError {
  override name = "WorkspaceError";
  constructor(
    message: string,
    readonly reason: "refused" | "limit" | "failed",
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Formats zod issues as "path: message" lines, naming the offending key and value. */
export function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return issues.map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join(".") : "(value)"}: ${issue.message}`).join("; ");
}

/**
 * The agent sandbox (AGENT_SANDBOX) could not start: the round is not run, and never unsandboxed.
 * Retrying does not help until the host is fixed, so a round that meets it ends at once.
 */
export class SandboxError extends EscalationError {
  override name = "SandboxError";
}

/** The Redis the app was pointed at runs in cluster mode, which the store cannot use (src/redis/refuseCluster.ts). */
export class RedisClusterUnsupportedError extends ConfigError {
  override name = "RedisClusterUnsupportedError";
}
