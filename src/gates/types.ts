import type { Ask } from "../protocol/ask.js";
import type { ApprovalPolicy, Vote } from "../protocol/approval.js";
import type { Answer } from "../protocol/reply.js";

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
  commentId?: number;
  url?: string;
  /** Audit hash of the text as first folded (src/agent/renderTask.ts foldedSha256), kept when rebuilt from the status comment. */
  sha256?: string;
  /** An approval gate's outcome (the answer's text is "approved" or "denied") and the votes that decided it. */
  approval?: ApprovalRecord;
}

export interface ApprovalRecord {
  outcome: "approved" | "denied";
  required: number;
  policy: ApprovalPolicy;
  votes: Vote[];
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
  state: GateState;
  answers: RecordedAnswer[];
  answeredBy?: string;
  answeredAt?: number;
  answerCommentId?: number;
  resumedAt?: number;
  closedReason?: string;
}

/** Guidance a human left with /note, folded into every later spawn task. */
export interface HumanNote {
  by: string;
  at: number;
  url: string;
  text: string;
  round: number;
  /** Audit hash of the text as first folded, kept when rebuilt from the status comment. */
  sha256?: string;
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
  assignees: string[];
  /** GitHub's issue state ("open" or "closed") as last seen. */
  state: string;
  openGate?: string;
  nextRound: number;
  statusCommentId?: number;
}
