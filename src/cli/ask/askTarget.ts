import { UsageError, EnvironmentError } from "../usage.js";
import type { AskEnv } from "./askEnv.js";

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const isIssueNumber = (text: string) => /^\d+$/.test(text) && Number(text) >= 1;

/** Where an ask is posted. */
export interface AskTarget {
  repo: string;
  issue: number;
}

/**
 * The repository and issue of an ask: the flags when given, else the agent's environment. A bad
 * flag is a UsageError; whatever the environment lacks (the token too, when `posting` without the
 * round channel, which posts for the agent) is one
 * EnvironmentError naming every variable to set.
 */
export function askTarget(env: AskEnv, flags: { repo?: string; issue?: string }, posting: boolean): AskTarget {
  if (flags.repo !== undefined && !REPO.test(flags.repo)) throw new UsageError(`--repo must be OWNER/REPO (got ${JSON.stringify(flags.repo)}).`);
  if (flags.issue !== undefined && !isIssueNumber(flags.issue)) throw new UsageError(`--issue must be an issue number (got ${JSON.stringify(flags.issue)}).`);
  const repo = flags.repo ?? env.GITHUB_REPOSITORY ?? "";
  const issue = flags.issue ?? env.ESCALATION_ISSUE ?? "";
  const problems: Array<[name: string, what: string]> = [];
  if (posting && !env.ESCALATION_CHANNEL_URL && !env.GITHUB_TOKEN) problems.push(["GITHUB_TOKEN", "is not set"]);
  if (!REPO.test(repo)) problems.push(["GITHUB_REPOSITORY", repo ? `must be OWNER/REPO (got ${JSON.stringify(repo)})` : "is not set"]);
  if (!isIssueNumber(issue)) problems.push(["ESCALATION_ISSUE", issue ? `must be an issue number (got ${JSON.stringify(issue)})` : "is not set"]);
  if (problems.length > 0) {
    const names = problems.map(([name]) => name);
    const flagsToo = names.some((name) => name !== "GITHUB_TOKEN") ? " (or pass --repo and --issue)" : "";
    throw new EnvironmentError(
      `${problems.map(([name, what]) => `${name} ${what}`).join(", ")}: the app sets ${names.length === 1 ? "it" : "these"} for the agents it spawns; to ask by hand, set ${names.length === 1 ? "it" : "them"}${flagsToo}.`,
      names,
    );
  }
  return { repo, issue: Number(issue) };
}
