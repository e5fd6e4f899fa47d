import { z } from "zod";

/**
 * The domain's types: asks and their answers, gates, votes, issues as the app records them, notes
 * and round timings. A leaf: it imports nothing of the app, so every layer (protocol, store, loop,
 * observers) can name these without depending on another.
 * One module over 250 lines, on purpose: it holds types and their zod schemas only (no behaviour),
 * and as one leaf the layout test checks a single file imports nothing of the app.
 */

/** A repository permission, lowest first (GitHub's role names). */
export const PERMISSION_LEVELS = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

/** One question of an ask. `default` is an option label or free text used when nobody answers. */
export const QuestionSchema = z.object({
  text: z.string().trim().min(1).max(4000),
  options: z.array(z.string().trim().min(1).max(300)).max(20).default([]),
  default: z.string().trim().min(1).max(4000).optional(),
  timeoutSeconds: z
    .number()
    .int()
    .positive()
    .max(366 * 86400)
    .optional(),
});
export type Question = z.infer<typeof QuestionSchema>;

/**
 * A repository path the ask is about (a file, or a directory with a trailing `/`): with
 * `answerers.from: codeowners` its code owners are who may answer.
 */
export const AskPathSchema = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(/^[^`\\\x00-\x1f]+$/, "must be a repository path without backticks, backslashes or control characters")
  .refine((p) => !p.split("/").includes(".."), "must stay inside the repository (no .. segments)");
/** The ask kind people vote on (approval.ts counts the votes). */
export const APPROVAL_KIND = "approval";

/** The most approvals an approval gate may need. */
export const MAX_APPROVERS = 20;

/** The structured ask carried by the hidden marker of an ask comment. */
export const AskSchema = z.object({
  v: z.literal(1),
  id: z.string().regex(/^[A-Za-z0-9_-]{6,64}$/),
  kind: z
    .string()
    .regex(/^[a-z][a-z_]{0,39}$/)
    .default("question"),
  round: z.number().int().min(0).max(100_000),
  questions: z.array(QuestionSchema).min(1).max(20),
  timeoutSeconds: z
    .number()
    .int()
    .positive()
    .max(366 * 86400)
    .optional(),
  context: z.string().max(4000).optional(),
  /** Optional, so asks written before paths existed still parse. */
  paths: z.array(AskPathSchema).min(1).max(20).optional(),
  /** Approvals an approval gate needs (kind "approval"); the repository may require more. Absent in older asks. */
  approvers: z.number().int().min(1).max(MAX_APPROVERS).optional(),
});
export type Ask = z.infer<typeof AskSchema>;
export type AskInput = z.input<typeof AskSchema>;

/** The kind of the gate a human's `/reopen` creates: it corrects an earlier answer. */
export const CORRECTION_KIND = "correction";

/** Approval gates: the policy that counts the votes, and a vote (src/protocol/approval.ts reads and counts them). */
export const APPROVAL_POLICIES = ["any-deny", "majority"] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];
export type VoteChoice = "approve" | "deny";

export interface Vote {
  /** The voter's login as GitHub spells it. */
  login: string;
  vote: VoteChoice;
  at: number;
  commentId: number;
  url?: string;
  /** The words after the vote ("deny: not before the freeze"). */
  note?: string;
}

/** What it takes to resolve a gate: `required` approvals; a denial decides at once (any-deny) or needs as many (majority). */
export interface ApprovalRule {
  required: number;
  policy: ApprovalPolicy;
}

/** One question's answer as read from a reply (src/protocol/reply.ts). */
export interface Answer {
  /** 0-based index of the question answered. */
  question: number;
  /** The answer as the human wrote it (visible text for that question). */
  text: string;
  /** The selected option label, when one was selected. */
  option?: string;
  /** 0-based index of that option. */
  optionIndex?: number;
  /** Free text beside the selected option. */
  note?: string;
}

/**
 * open: awaiting a human. answered: answer recorded, resume not yet started.
 * resuming: a spawn job has claimed it and its round is running. resumed: that round ran to its end
 * (GitHub's record tells a rebuild which rounds to run again).
 * cancelled / superseded: closed without a resume.
 */
export type GateState = "open" | "answered" | "resuming" | "resumed" | "cancelled" | "superseded";

export interface RecordedAnswer extends Answer {
  by: string;
  at: number;
  source: "human" | "default";
  /** The answering reply (src/github/replyIds.ts: an issue comment's id, a review's negative). */
  commentId?: number;
  url?: string;
  /** Given in a review comment on a line of a pull request's diff: that file and line. */
  about?: LineRef;
  /** The webhook delivery that brought the text: its queued event is removed when the text is withdrawn or replaced. */
  deliveryId?: string;
  /** Audit hash of the text as first folded (src/agent/renderTask.ts foldedSha256), kept when rebuilt from the status comment. */
  sha256?: string;
  /** An approval gate's outcome (the answer's text is "approved" or "denied") and the votes that decided it. */
  approval?: ApprovalRecord;
  /** Its comment was deleted by this account, not by its author: the answer stands (src/gates/foreignChanges.ts). */
  deletedBy?: string;
}

/** A line of a pull request's diff, as a review comment names it. */
export interface LineRef {
  path: string;
  line?: number;
  side?: "LEFT" | "RIGHT";
}

export interface ApprovalRecord {
  outcome: "approved" | "denied";
  required: number;
  policy: ApprovalPolicy;
  votes: Vote[];
}

/**
 * Who may answer a gate, as known when it opened (from the ask's paths, CODEOWNERS and
 * `.github/escalation.yml`): what the inbox groups by, with no GitHub call. Rebuilt with the gate.
 */
export interface GateAnswerers {
  /** Configured users and teams (org/team-slug), lower-cased: always allowed. */
  users: string[];
  teams: string[];
  /** The code owners of the ask's paths: when present, only they and the configured may answer. */
  codeOwners?: { users: string[]; teams: string[]; paths: string[]; file: string };
  /** Without code owners: anyone with at least this permission on the repository. */
  minimumPermission?: PermissionLevel;
}

export interface Gate {
  id: string;
  repo: string;
  issue: number;
  installationId: number;
  round: number;
  ask: Ask;
  askedAt: number;
  askedBy: string;
  askUrl: string;
  /** Undefined on gates opened before answerers were recorded: the repository's rule then applies. */
  answerers?: GateAnswerers;
  /** An approval gate's rule as the repository set it when the gate opened (what the status page shows); absent on older gates. */
  approvalRule?: ApprovalRule;
  state: GateState;
  answers: RecordedAnswer[];
  answeredBy?: string;
  answeredAt?: number;
  answerCommentId?: number;
  resumedAt?: number;
  closedReason?: string;
  /** The reminder ladder ran out without an answer (ms); the gate stays open. */
  overdueAt?: number;
  /** Answers whose comment was deleted (or edited to no longer answer): who, when, which questions; never their text. */
  withdrawn?: Withdrawal[];
  /** How often a withdrawn answer opened the answered gate again: part of the next resume's job id. */
  reopened?: number;
}

/** A gate as the ask creates it, before any answer. */
export type NewGate = Pick<Gate, "id" | "repo" | "issue" | "installationId" | "round" | "ask" | "askedAt" | "askedBy" | "askUrl"> &
  Partial<Pick<Gate, "answerers" | "approvalRule">>;

export interface Withdrawal {
  /** Who had given the withdrawn answer. */
  by: string;
  at: number;
  /** 0-based indexes of the questions it answered. */
  questions: number[];
}

/** Guidance a human left with /note, folded into every later spawn task. */
export interface HumanNote {
  by: string;
  at: number;
  url: string;
  text: string;
  round: number;
  /** The webhook delivery that brought the text (see RecordedAnswer.deliveryId). */
  deliveryId?: string;
  /** Audit hash of the text as first folded, kept when rebuilt from the status comment. */
  sha256?: string;
  /** Its comment was deleted: the text is gone (""), later tasks say only that a note was withdrawn. */
  withdrawn?: boolean;
  /** Its comment was deleted by this account, not by its author: the note stands (src/gates/foreignChanges.ts). */
  deletedBy?: string;
}

/**
 * The issue's body was last changed by `editor`, not by its author: `authorBody` is the author's own
 * last version, absent when the app could not learn it (README, "Changed by someone else").
 */
export interface BodyEdit {
  editor: string;
  authorBody?: string;
}

/**
 * The issue's title was last changed under a bot's name (the agent acts as the App's bot), by
 * `editor`: `personsTitle` is the last title a person gave it (src/gates/issueTitle.ts).
 */
export interface TitleEdit {
  editor: string;
  personsTitle: string;
}

export interface IssueRecord {
  repo: string;
  issue: number;
  installationId: number;
  title: string;
  body: string;
  url: string;
  /** Who opened the issue (wrote its body), when known. */
  author?: string;
  /** Set while the body GitHub shows was last changed by someone other than its author. */
  bodyEdit?: BodyEdit;
  /** Set while the title GitHub shows was last changed under a bot's name. */
  titleEdit?: TitleEdit;
  assignees: string[];
  /** GitHub's issue state ("open" or "closed") as last seen. */
  state: string;
  openGate?: string;
  nextRound: number;
  statusCommentId?: number;
}

/**
 * One agent round's two clocks, kept apart: how long humans took to answer the question it resumed
 * (ask → answer) and how long the agent ran (spawn → exit, its last attempt).
 */
export interface RoundTiming {
  round: number;
  /** When the agent process started (ms). */
  startedAt: number;
  runMs: number;
  outcome: "success" | "failure" | "timeout" | "stopped";
  /** The gate the round resumed, absent for a dispatched round. */
  gate?: string;
  /** Ask → answer of that gate. */
  waitMs?: number;
  /** Who answered it ("escalation": the defaults taken at timeout). */
  answeredBy?: string;
}
