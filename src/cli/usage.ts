import { EscalationError, describeIssues } from "../errors.js";

/** A bad flag or argument: printed with the command's help, exit code 2. */
export class UsageError extends EscalationError {
  override name = "UsageError";
}

/**
 * A variable the command reads is missing or malformed: one line naming what to set, exit code 2.
 * `variables` are the names at fault, for a caller that words it its own way (the MCP tool).
 */
export class EnvironmentError extends EscalationError {
  override name = "EnvironmentError";
  constructor(
    message: string,
    readonly variables: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The EnvironmentError for zod's issues with an environment: each names its variable. */
export function invalidEnvironment(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): EnvironmentError {
  return new EnvironmentError(`Invalid environment: ${describeIssues(issues)}`, [...new Set(issues.map((issue) => String(issue.path[0])))]);
}

export const COMMANDS = ["ask", "comment", "mcp", "status", "answer", "reconcile"] as const;
export type Command = (typeof COMMANDS)[number];

interface CommandHelp {
  /** What follows `escalate ` in the usage line. */
  synopsis: string;
  /** The command's name in the overview, when it shows more (`answer GATE`). */
  label?: string;
  about: string[];
  /** Flag lines, the flag padded to 20 columns; continuation lines start with spaces. */
  flags: string[];
  environment: string[];
  exitCodes: string;
}

const HELP: Record<Command, CommandHelp> = {
  ask: {
    synopsis: "ask --question TEXT [flags]",
    about: ["Post a question on the issue and let the agent exit; it is re-spawned with the answer."],
    flags: [
      "--question TEXT     a question (repeat for several); the flags below attach to the last one",
      "--option TEXT       an option of that question (repeat)",
      "--default TEXT      the option (label or number) or text taken if nobody answers in time",
      "--timeout DURATION  e.g. 30m, 2h, 1d; before any --question it applies to the whole ask",
      "--context TEXT      a short paragraph shown above the questions",
      "--path PATH         a repository path the ask is about (repeat); with",
      "                    answerers.from: codeowners, its code owners answer",
      "--kind approval     ask people to approve or deny one --question (no --option, no --default)",
      "--approvers M       with --kind approval: distinct people who must approve (1-20; the",
      "                    repository may require more)",
      "--repo OWNER/REPO   default: $GITHUB_REPOSITORY",
      "--issue N           default: $ESCALATION_ISSUE",
      "--dry-run           print the comment instead of posting it",
    ],
    environment: [
      "What the app sets for agents: GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY,",
      "ESCALATION_ISSUE, ESCALATION_ROUND, and the round channel the app posts through,",
      "ESCALATION_CHANNEL_URL and ESCALATION_CHANNEL_TOKEN (without them GITHUB_TOKEN posts);",
      "in a sandbox also HTTPS_PROXY, HTTP_PROXY, NO_PROXY.",
    ],
    exitCodes: "0 posted, 1 GitHub refused or could not be reached, 2 bad usage or environment.",
  },
  comment: {
    synopsis: "comment (--body TEXT | --body-file FILE)",
    about: ["Leave a comment on the issue, marked as the agent's words (no question: nothing waits)."],
    flags: [
      "--body TEXT         the comment's Markdown",
      "--body-file FILE    read it from FILE (- for stdin)",
      "--repo OWNER/REPO   default: $GITHUB_REPOSITORY",
      "--issue N           default: $ESCALATION_ISSUE",
    ],
    environment: ["As for ask."],
    exitCodes: "0 posted, 1 GitHub refused or could not be reached, 2 bad usage or environment.",
  },
  mcp: {
    synopsis: "mcp",
    about: ["Serve the ask_human tool (the same ask) to an MCP client over stdio."],
    flags: [],
    environment: [
      "As for ask: the MCP client must pass GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY,",
      "ESCALATION_ISSUE, ESCALATION_ROUND, ESCALATION_CHANNEL_URL, ESCALATION_CHANNEL_TOKEN",
      "(and in a sandbox HTTPS_PROXY, HTTP_PROXY, NO_PROXY) in the server's environment.",
    ],
    exitCodes: "0 when the client closes stdin, 2 bad usage.",
  },
  status: {
    synopsis: "status [flags]",
    about: ["List the open gates: issue, kind, questions, age, time left, link; then counts."],
    flags: [
      "--json              exact JSON instead of the table",
      "--repo OWNER/REPO   only this repository",
      "--by answerer       group by who can answer (the inbox), oldest first",
      "--answerer NAME     only what LOGIN or ORG/TEAM can answer (repeat; implies --by answerer)",
    ],
    environment: [
      "The app's Redis: REDIS_URL, or else the URL its private Redis writes to DATA_DIR/redis.url",
      '(DATA_DIR default "data"); REDIS_PREFIX (default "escalation").',
    ],
    exitCodes: "0 listed, 1 Redis refused or could not be reached, 2 bad usage or environment.",
  },
  answer: {
    synopsis: "answer GATE (--choice N | --text TEXT | --defaults | --raw JSON)",
    label: "answer GATE",
    about: [
      "Answer a gate from the terminal: posts the answer comment on its issue with",
      "your own GITHUB_TOKEN, as if you had replied on GitHub. Exactly one of:",
    ],
    flags: [
      "--choice N          the option number (a single question)",
      "--text TEXT         free text, posted as it is",
      '--defaults          accept every default ("/defaults")',
      '--raw JSON          {"1":"Postgres","2":"yes"}: one answer per question number',
    ],
    environment: ["GITHUB_TOKEN (yours), GITHUB_API_URL; the app's Redis as for status: REDIS_URL or", "DATA_DIR/redis.url, REDIS_PREFIX."],
    exitCodes: "0 posted, 1 GitHub or Redis refused or could not be reached (or no such open gate), 2 bad usage or environment.",
  },
  reconcile: {
    synopsis: "reconcile [flags]",
    about: [
      "Rebuild Redis from GitHub now (what the app does at start-up and every",
      "RECONCILE_INTERVAL) and print what changed. Uses the app's environment.",
    ],
    flags: ["--json              the report as JSON", "--lookback HOURS    scan issues updated this far back on a first run (default 24)"],
    environment: ["The app's own (APP_ID, PRIVATE_KEY, …); its Redis as for status: REDIS_URL or DATA_DIR/redis.url."],
    exitCodes: "0 reconciled, 1 a configuration error or an issue that failed, 2 bad usage or environment.",
  },
};

const HELP_FLAG = "-h, --help          show this command's help";

/** `escalate COMMAND --help`: that command's usage, flags, environment and exit codes. */
export function commandHelp(command: Command): string {
  const help = HELP[command];
  return [
    `Usage: escalate ${help.synopsis}`,
    "",
    ...help.about,
    "",
    "Flags:",
    ...[...help.flags, HELP_FLAG].map((line) => `  ${line}`),
    "",
    "Environment:",
    ...help.environment.map((line) => `  ${line}`),
    "",
    `Exit codes: ${help.exitCodes}`,
  ].join("\n");
}

/** `escalate --help`: every command with its flags, from the same text as each command's help. */
export const USAGE = [
  "Usage: escalate <command> [flags]",
  "",
  "Commands:",
  ...COMMANDS.flatMap((command) => {
    const help = HELP[command];
    const label = help.label ?? command;
    const lines = [...help.about, ...help.flags];
    const indent = (line: string) => `           ${line}`;
    return label.length <= 8 ? [`  ${label.padEnd(8)} ${lines[0]}`, ...lines.slice(1).map(indent)] : [`  ${label}`, ...lines.map(indent)];
  }),
  "  help     Show this text. `escalate COMMAND --help` shows one command's.",
  "",
  "Environment: ask, comment and mcp use what the app sets for agents: GITHUB_TOKEN, GITHUB_API_URL,",
  "GITHUB_REPOSITORY, ESCALATION_ISSUE, ESCALATION_ROUND, ESCALATION_CHANNEL_URL and",
  "ESCALATION_CHANNEL_TOKEN. status, answer and reconcile read the",
  "app's Redis: REDIS_URL, or else DATA_DIR/redis.url, which the app's private Redis writes;",
  'REDIS_PREFIX (default "escalation"). answer posts with GITHUB_TOKEN, GITHUB_API_URL.',
  "Exit codes: 0 done, 1 GitHub or Redis refused or could not be reached (or no such open gate),",
  "2 bad usage, or a variable missing or malformed (one line naming it).",
].join("\n");

export function isCommand(name: string | undefined): name is Command {
  return (COMMANDS as readonly string[]).includes(name ?? "");
}

/** `--help` or `-h` among a command's arguments (before a `--`). */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}
