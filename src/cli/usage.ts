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
           --repo OWNER/REPO   default: $GITHUB_REPOSITORY
           --issue N           default: $ESCALATION_ISSUE
           --dry-run           print the comment instead of posting it
  help     Show this text.

Environment (set for agents by the app): GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY,
ESCALATION_ISSUE, ESCALATION_ROUND.
Exit codes: 0 posted, 1 GitHub refused or could not be reached, 2 bad usage.`;
