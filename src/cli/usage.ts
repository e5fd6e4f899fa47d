import { EscalationError } from "../errors.js";

/** A bad flag or argument: printed with the usage text, exit code 2. */
export class UsageError extends EscalationError {
  override name = "UsageError";
}

export const USAGE = `Usage: escalate <command> [flags]

Commands:
  ask      Post a question on the issue and let the agent exit; it is re-spawned with the answer.
           --question TEXT     a question (repeat for several); the flags below attach to the last one
           --option TEXT       an option of that question (repeat)
           --default TEXT      the option (label or number) or text taken if nobody answers in time
           --timeout DURATION  e.g. 30m, 2h, 1d; before any --question it applies to the whole ask
           --context TEXT      a short paragraph shown above the questions
           --path PATH         a repository path the ask is about (repeat); with
                               answerers.from: codeowners, its code owners answer
           --kind approval     ask people to approve or deny one --question (no --option, no --default)
           --approvers M       with --kind approval: distinct people who must approve (1-20; the
                               repository may require more)
           --repo OWNER/REPO   default: $GITHUB_REPOSITORY
           --issue N           default: $ESCALATION_ISSUE
           --dry-run           print the comment instead of posting it
  mcp      Serve the ask_human tool (the same ask) to an MCP client over stdio.
  status   List the open gates: issue, kind, questions, age, time left, link; then counts.
           --json              exact JSON instead of the table
           --repo OWNER/REPO   only this repository
           --by answerer       group by who can answer (the inbox), oldest first
           --answerer NAME     only what LOGIN or ORG/TEAM can answer (repeat; implies --by answerer)
  answer GATE
           Answer a gate from the terminal: posts the answer comment on its issue with
           your own GITHUB_TOKEN, as if you had replied on GitHub. Exactly one of:
           --choice N          the option number (a single question)
           --text TEXT         free text, posted as it is
           --defaults          accept every default ("/defaults")
           --raw JSON          {"1":"Postgres","2":"yes"}: one answer per question number
  reconcile
           Rebuild Redis from GitHub now (what the app does at start-up and every
           RECONCILE_INTERVAL) and print what changed. Uses the app's environment.
           --json              the report as JSON
           --lookback HOURS    scan issues updated this far back on a first run (default 24)
  help     Show this text.

Environment: ask and mcp use what the app sets for agents: GITHUB_TOKEN, GITHUB_API_URL,
GITHUB_REPOSITORY, ESCALATION_ISSUE, ESCALATION_ROUND. status and answer read the app's Redis:
REDIS_URL, REDIS_PREFIX (default "escalation"); answer posts with GITHUB_TOKEN, GITHUB_API_URL.
Exit codes: 0 done, 1 GitHub or Redis refused or could not be reached (or no such open gate),
2 bad usage.`;
