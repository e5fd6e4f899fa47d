import { safeRedisUrl } from "../../src/redis/safeUrl.js";

export interface BannerFacts {
  playgroundUrl: string;
  appUrl: string;
  apiUrl: string;
  adminToken: string;
  redisUrl: string;
  /** Whether REDIS_URL was given (else the playground's own, throw-away redis-server). */
  sharedRedis: boolean;
  redisPrefix: string;
  dataDir: string;
  repo: string;
  agentToken: string;
  sandboxNote: string;
}

/** What `npm run playground` prints once everything is up: where each part is and how to try the tools on it. */
export function banner(f: BannerFacts): string {
  const status = `${f.appUrl}/escalation`;
  const redisEnv = f.sharedRedis ? `REDIS_URL="$REDIS_URL"` : `DATA_DIR=${f.dataDir}`;
  return [
    "",
    "🛝 escalation playground",
    "",
    `  Playground    ${f.playgroundUrl}/   play the human: open an issue, label it agent, answer the agent`,
    `  Status page   ${status}   (sign in with ADMIN_TOKEN=${f.adminToken}, or send the header Authorization: Bearer ${f.adminToken})`,
    `  Inbox         ${status}?by=answerer`,
    `  App webhooks  ${f.appUrl}/api/github/webhooks   (the simulator signs its deliveries with this run's secret)`,
    `  GitHub API    ${f.apiUrl}   (the simulator)`,
    `  Redis         ${safeRedisUrl(f.redisUrl)}${f.sharedRedis ? "" : " (this run's own, removed at exit)"}, keys under ${f.redisPrefix}`,
    `  ${f.sandboxNote}`,
    "",
    "  The open gates from a terminal:",
    `    ${redisEnv} REDIS_PREFIX=${f.redisPrefix} bin/escalate status --by answerer`,
    "  Ask as the agent of issue 1 with the MCP tool ask_human (or `escalate ask`); the token is the App's, valid for an hour:",
    `    GITHUB_TOKEN=${f.agentToken} GITHUB_API_URL=${f.apiUrl} GITHUB_REPOSITORY=${f.repo} ESCALATION_ISSUE=1 ESCALATION_ROUND=0 bin/escalate mcp`,
    "",
    "playground is up: Ctrl-C stops it (a second Ctrl-C exits at once).",
  ].join("\n");
}
