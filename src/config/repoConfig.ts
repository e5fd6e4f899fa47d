import { z } from "zod";
import { describeIssues } from "../errors.js";
import { PERMISSION_LEVELS, type PermissionLevel } from "../github/permissions.js";
import { MAX_APPROVERS } from "../protocol/ask.js";
import { APPROVAL_POLICIES, type ApprovalPolicy } from "../protocol/approval.js";
import { parseDuration } from "../protocol/duration.js";
import type { AppConfig } from "./env.js";

/** Where a repository's settings live, read through Probot's config loader. */
export const REPO_CONFIG_PATH = ".github/escalation.yml";

const login = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/, "must be a GitHub login");
const durationText = z.string().refine((v) => {
  try {
    parseDuration(v, "timeout");
    return true;
  } catch {
    return false;
  }
}, "must be a duration like 30m, 2h or 1d");

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
        teams: z.array(z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be org/team-slug")).max(50).optional(),
        minimum_permission: z.enum(PERMISSION_LEVELS.filter((l) => l !== "none") as [PermissionLevel, ...PermissionLevel[]]).optional(),
      })
      .strict()
      .optional(),
    timeout: durationText.optional(),
    max_attempts: z.number().int().min(1).max(20).optional(),
    max_rounds: z.number().int().min(1).max(1000).optional(),
    slack: z.object({ channel: z.string().min(1).max(100) }).strict().optional(),
    agent_profile: z.string().regex(/^[a-z0-9_-]{1,40}$/).optional(),
    approvals: z
      .object({
        approvers: z.number().int().min(1).max(MAX_APPROVERS).optional(),
        policy: z.enum(APPROVAL_POLICIES).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RepoConfig = z.infer<typeof RepoConfigSchema>;

/** Effective settings for one repository: its file over the server's defaults. */
export interface RepoSettings {
  labels: { awaiting: string; dispatch: string };
  answerers: { users: string[]; teams: string[]; minimumPermission: PermissionLevel };
  defaultTimeoutSeconds: number | undefined;
  maxAttempts: number;
  maxRounds: number;
  slackChannel: string | undefined;
  agentProfile: string | undefined;
  /** Approval gates: the approvals needed (an ask may ask for more, never fewer) and the denial policy. */
  approvals: { approvers: number; policy: ApprovalPolicy };
}

export function serverDefaults(config: AppConfig): RepoSettings {
  return {
    labels: { ...config.labels },
    answerers: { users: [], teams: [], minimumPermission: config.answererMinPermission },
    defaultTimeoutSeconds: undefined,
    maxAttempts: config.agent.maxAttempts,
    maxRounds: config.maxRounds,
    slackChannel: undefined,
    agentProfile: undefined,
    approvals: { approvers: 1, policy: "any-deny" },
  };
}

export type RepoConfigResult = { settings: RepoSettings; problem?: string };

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
        teams: c.answerers?.teams ?? [],
        minimumPermission: c.answerers?.minimum_permission ?? defaults.answerers.minimumPermission,
      },
      defaultTimeoutSeconds: c.timeout ? parseDuration(c.timeout, "timeout") : defaults.defaultTimeoutSeconds,
      maxAttempts: c.max_attempts ?? defaults.maxAttempts,
      maxRounds: c.max_rounds ?? defaults.maxRounds,
      slackChannel: c.slack?.channel ?? defaults.slackChannel,
      agentProfile: c.agent_profile ?? defaults.agentProfile,
      approvals: { approvers: c.approvals?.approvers ?? defaults.approvals.approvers, policy: c.approvals?.policy ?? defaults.approvals.policy },
    },
  };
}
