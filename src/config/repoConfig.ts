import { z } from "zod";
import { APPROVAL_POLICIES, MAX_APPROVERS, PERMISSION_LEVELS, type ApprovalPolicy, type PermissionLevel } from "../domain.js";
import { describeIssues } from "../errors.js";
import { parseDuration } from "../protocol/duration.js";
import type { AppConfig } from "./appConfig.js";

/**
 * Who answers: "permission" (anyone with the minimum permission, and the listed users and teams),
 * or "codeowners" (for a question about paths, their code owners and the listed users and teams;
 * "permission" when no owner is known).
 */
export const ANSWERER_SOURCES = ["permission", "codeowners"] as const;
export type AnswererSource = (typeof ANSWERER_SOURCES)[number];

/** Where a repository's settings live, read through Probot's config loader. */
export const REPO_CONFIG_PATH = ".github/escalation.yml";

const login = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/, "must be a GitHub login");
/** Seconds of a duration, or undefined when it is not one. */
function secondsOf(text: string): number | undefined {
  try {
    return parseDuration(text, "timeout");
  } catch {
    return undefined;
  }
}
const durationText = z.string().refine((v) => secondsOf(v) !== undefined, "must be a duration like 30m, 2h or 1d");

/** Who a reminder step mentions: the issue's assignees, the configured answerers, or a literal @login / @org/team. */
const mention = z.string().regex(/^(assignees|answerers|@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\/[A-Za-z0-9_.-]+)?)$/, {
  error: (issue) => `must be assignees, answerers, @login or @org/team (got ${JSON.stringify(issue.input)})`,
});

/** One rung of the reminder ladder: a reminder that mentions someone, or (the last rung only) what happens then. */
const LadderStepSchema = z
  .object({
    after: durationText,
    mention: z.union([mention, z.array(mention).min(1).max(10)]).optional(),
    then: z.enum(["default", "overdue"]).optional(),
  })
  .strict()
  .refine(
    (step) => (step.mention === undefined) !== (step.then === undefined),
    "each step needs exactly one of mention (a reminder) or then (default or overdue)",
  );

const RemindersSchema = z
  .object({ ladder: z.array(LadderStepSchema).min(1).max(10) })
  .strict()
  .superRefine(({ ladder }, ctx) => {
    // Also runs when a step is invalid: only valid durations are compared.
    const seconds = ladder.map((step) => secondsOf(step.after));
    seconds.forEach((s, i) => {
      const before = seconds[i - 1];
      if (i > 0 && s !== undefined && before !== undefined && s <= before)
        ctx.addIssue({
          code: "custom",
          path: ["ladder", i, "after"],
          message: `must be later than the step before (${ladder[i - 1]!.after}); list the steps in order`,
        });
    });
    ladder.forEach((step, i) => {
      if (step.then !== undefined && i !== ladder.length - 1)
        ctx.addIssue({ code: "custom", path: ["ladder", i, "then"], message: "only the last step may say then: default or overdue" });
    });
  });

/** The default branch an issue's work goes to; `{issue}` is the issue's number. */
export const DEFAULT_BRANCH_TEMPLATE = "escalation/issue-{issue}";

/** A branch name template: what `git check-ref-format --branch` accepts, with `{issue}` in it. */
const branchTemplate = z
  .string()
  .max(200)
  .refine((t) => t.includes("{issue}"), "must contain {issue}, so each issue has its own branch")
  .refine((t) => {
    const name = t.replaceAll("{issue}", "1");
    return /^[A-Za-z0-9._/-]+$/.test(name) && !/(^[/.-]|\/\/|\.\.|\/\.|[/.]$|\.lock$|\.lock\/)/.test(name);
  }, "must be a valid branch name (letters, digits, . _ - /; no .., //, or leading or trailing / or .)");

/** A rung of the reminder ladder, resolved: seconds after the ask. */
export interface ReminderStep {
  afterSeconds: number;
  /** A reminder mentioning these (assignees, answerers, @login, @org/team). */
  mention?: string[];
  /** The last rung: take the defaults (questions without one become overdue), or only mark the gate overdue. */
  then?: "default" | "overdue";
}

/**
 * `.github/escalation.yml`. Strict: an unknown key is an error, which is also how a `command` key
 * is refused; the agent's command is server-side only (README, "Security").
 */
export const RepoConfigSchema = z
  .object({
    labels: z
      .object({ awaiting: z.string().trim().min(1).max(50).optional(), dispatch: z.string().trim().min(1).max(50).optional() })
      .strict()
      .optional(),
    answerers: z
      .object({
        users: z.array(login).max(200).optional(),
        teams: z
          .array(z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be org/team-slug"))
          .max(50)
          .optional(),
        minimum_permission: z.enum(PERMISSION_LEVELS.filter((l) => l !== "none") as [PermissionLevel, ...PermissionLevel[]]).optional(),
        /** codeowners: a question about paths (`escalate ask --path`) is answered by their code owners. */
        from: z.enum(ANSWERER_SOURCES).optional(),
      })
      .strict()
      .optional(),
    timeout: durationText.optional(),
    max_attempts: z.number().int().min(1).max(20).optional(),
    max_rounds: z.number().int().min(1).max(1000).optional(),
    slack: z
      .object({ channel: z.string().min(1).max(100) })
      .strict()
      .optional(),
    agent_profile: z
      .string()
      .regex(/^[a-z0-9_-]{1,40}$/)
      .optional(),
    reminders: RemindersSchema.optional(),
    approvals: z
      .object({
        approvers: z.number().int().min(1).max(MAX_APPROVERS).optional(),
        policy: z.enum(APPROVAL_POLICIES).optional(),
      })
      .strict()
      .optional(),
    workspace: z
      .object({ enabled: z.boolean().optional(), branch: branchTemplate.optional(), pull_request: z.union([z.boolean(), z.literal("agent")]).optional() })
      .strict()
      .optional(),
  })
  .strict();
export type RepoConfig = z.infer<typeof RepoConfigSchema>;

/**
 * Who opens the issue's pull request from its branch: the app when a round finishes ("app", the
 * file's `true`), the agent itself with a token that may ("agent"), or nobody ("off", `false`).
 */
export type PullRequestMode = "app" | "agent" | "off";

/** Effective settings for one repository: its file over the server's defaults. */
export interface RepoSettings {
  labels: { awaiting: string; dispatch: string };
  answerers: { users: string[]; teams: string[]; minimumPermission: PermissionLevel; from: AnswererSource };
  defaultTimeoutSeconds: number | undefined;
  maxAttempts: number;
  maxRounds: number;
  slackChannel: string | undefined;
  agentProfile: string | undefined;
  /** The reminder ladder of every open gate; empty: none. */
  reminderLadder: ReminderStep[];
  /** Approval gates: the approvals needed (an ask may ask for more, never fewer) and the denial policy. */
  approvals: { approvers: number; policy: ApprovalPolicy };
  /** The agent's checkout: on or off, the branch template (`{issue}` filled per issue), and who opens the pull request from it. */
  workspace: { enabled: boolean; branch: string; pullRequest: PullRequestMode };
}

export function serverDefaults(config: AppConfig): RepoSettings {
  return {
    labels: { ...config.labels },
    answerers: { users: [], teams: [], minimumPermission: config.answererMinPermission, from: "permission" },
    defaultTimeoutSeconds: undefined,
    maxAttempts: config.agent.maxAttempts,
    maxRounds: config.maxRounds,
    slackChannel: undefined,
    agentProfile: undefined,
    reminderLadder: [],
    approvals: { approvers: 1, policy: "any-deny" },
    workspace: { enabled: config.workspace.enabled, branch: DEFAULT_BRANCH_TEMPLATE, pullRequest: "app" },
  };
}

export interface RepoConfigResult {
  settings: RepoSettings;
  problem?: string;
}

/** Validates a loaded file; on any problem the server defaults apply and `problem` names the key. */
export function resolveRepoSettings(raw: unknown, defaults: RepoSettings): RepoConfigResult {
  if (raw === null || raw === undefined) return { settings: defaults };
  const parsed = RepoConfigSchema.safeParse(raw);
  if (!parsed.success) return { settings: defaults, problem: describeIssues(parsed.error.issues) };
  const c = parsed.data;
  return {
    settings: {
      labels: { awaiting: c.labels?.awaiting ?? defaults.labels.awaiting, dispatch: c.labels?.dispatch ?? defaults.labels.dispatch },
      answerers: {
        users: (c.answerers?.users ?? []).map((u) => u.toLowerCase()),
        teams: (c.answerers?.teams ?? []).map((t) => t.toLowerCase()),
        minimumPermission: c.answerers?.minimum_permission ?? defaults.answerers.minimumPermission,
        from: c.answerers?.from ?? defaults.answerers.from,
      },
      defaultTimeoutSeconds: c.timeout ? parseDuration(c.timeout, "timeout") : defaults.defaultTimeoutSeconds,
      maxAttempts: c.max_attempts ?? defaults.maxAttempts,
      maxRounds: c.max_rounds ?? defaults.maxRounds,
      slackChannel: c.slack?.channel ?? defaults.slackChannel,
      agentProfile: c.agent_profile ?? defaults.agentProfile,
      reminderLadder: c.reminders ? c.reminders.ladder.map(resolveStep) : defaults.reminderLadder,
      approvals: { approvers: c.approvals?.approvers ?? defaults.approvals.approvers, policy: c.approvals?.policy ?? defaults.approvals.policy },
      // A repository can turn its checkout off, never on where the server turned it off.
      workspace: {
        enabled: defaults.workspace.enabled && (c.workspace?.enabled ?? true),
        branch: c.workspace?.branch ?? defaults.workspace.branch,
        pullRequest:
          c.workspace?.pull_request === undefined
            ? defaults.workspace.pullRequest
            : c.workspace.pull_request === "agent"
              ? "agent"
              : c.workspace.pull_request
                ? "app"
                : "off",
      },
    },
  };
}

function resolveStep(step: z.infer<typeof LadderStepSchema>): ReminderStep {
  const afterSeconds = parseDuration(step.after, "after");
  if (step.then !== undefined) return { afterSeconds, then: step.then };
  return { afterSeconds, mention: typeof step.mention === "string" ? [step.mention] : (step.mention ?? []) };
}
