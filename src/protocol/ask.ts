import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ProtocolError, describeIssues } from "../errors.js";
import { formatDuration } from "./duration.js";
import { findMarker, renderMarker } from "./marker.js";

/** One question of an ask. `default` is an option label or free text used when nobody answers. */
export const QuestionSchema = z.object({
  text: z.string().trim().min(1).max(4000),
  options: z.array(z.string().trim().min(1).max(300)).max(20).default([]),
  default: z.string().trim().min(1).max(4000).optional(),
  timeoutSeconds: z.number().int().positive().max(366 * 86400).optional(),
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
  kind: z.string().regex(/^[a-z][a-z_]{0,39}$/).default("question"),
  round: z.number().int().min(0).max(100_000),
  questions: z.array(QuestionSchema).min(1).max(20),
  timeoutSeconds: z.number().int().positive().max(366 * 86400).optional(),
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

export function newAskId(): string {
  return randomBytes(9).toString("base64url");
}

/** Validates an ask; throws ProtocolError naming each bad field. */
export function validateAsk(input: unknown): Ask {
  const parsed = AskSchema.safeParse(input);
  if (!parsed.success) throw new ProtocolError(`Invalid ask: ${describeIssues(parsed.error.issues)}`);
  const ask = parsed.data;
  checkApproval(ask);
  ask.questions.forEach((question, index) => {
    if (question.default !== undefined && question.options.length > 0) {
      question.default = resolveOptionLabel(question, question.default) ?? question.default;
    }
    if (new Set(question.options.map((o) => o.toLowerCase())).size !== question.options.length) {
      throw new ProtocolError(`Invalid ask: questions.${index}.options: option labels must differ (case-insensitively).`);
    }
  });
  return ask;
}

/** An approval is one yes-or-no question that people vote on: it has no options and no default. */
function checkApproval(ask: Ask): void {
  if (ask.kind !== APPROVAL_KIND) {
    if (ask.approvers !== undefined) throw new ProtocolError(`Invalid ask: approvers: only an ask of kind "${APPROVAL_KIND}" has approvers (kind is "${ask.kind}").`);
    return;
  }
  if (ask.questions.length !== 1) throw new ProtocolError(`Invalid ask: questions: an approval asks exactly one question (got ${ask.questions.length}).`);
  const [question] = ask.questions;
  if (question!.options.length > 0) throw new ProtocolError("Invalid ask: questions.0.options: an approval has no options; people reply approve or deny.");
  if (question!.default !== undefined) throw new ProtocolError("Invalid ask: questions.0.default: an approval has no default; nobody approves by silence.");
}

/** Maps "2" or "sqlite" to the option label "SQLite"; undefined when it names no option. */
export function resolveOptionLabel(question: Question, value: string): string | undefined {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return question.options[Number(trimmed) - 1];
  return question.options.find((option) => option.toLowerCase() === trimmed.toLowerCase());
}

/** The effective timeout of a question: its own, else the ask's. */
export function questionTimeout(ask: Ask, question: Question): number | undefined {
  return question.timeoutSeconds ?? ask.timeoutSeconds;
}

/** Renders the comment an agent posts: readable for the human, with the hidden marker at the end. */
export function renderAskComment(ask: Ask): string {
  if (ask.kind === APPROVAL_KIND) return renderApprovalAsk(ask);
  const lines: string[] = [];
  const several = ask.questions.length > 1;
  lines.push(several ? "### 🙋 The agent needs your input on a few questions" : "### 🙋 The agent needs your input");
  if (ask.context) lines.push("", ask.context);
  if (ask.paths) lines.push("", `_About:_ ${ask.paths.map((p) => `\`${p}\``).join(", ")}`);
  ask.questions.forEach((question, index) => {
    lines.push("", several ? `**${index + 1}. ${question.text}**` : `**${question.text}**`);
    question.options.forEach((option, optionIndex) => {
      const isDefault = question.default === option;
      lines.push(`${optionIndex + 1}. ${option}${isDefault ? " _(default)_" : ""}`);
    });
    if (question.default !== undefined && !question.options.includes(question.default)) {
      lines.push(`_Default:_ ${question.default}`);
    }
    const timeout = questionTimeout(ask, question);
    if (timeout !== undefined && several) {
      lines.push(`_Times out after ${formatDuration(timeout)}._`);
    }
  });
  lines.push("", "---");
  const anyOptions = ask.questions.some((q) => q.options.length > 0);
  if (several) {
    lines.push("Reply with one line per question, such as `1. Postgres` and `2: yes`, or answer one with `/answer 2 yes`.");
  } else if (anyOptions) {
    lines.push("Reply with the option's number or name (words after it are kept as a note), or with free text.");
  } else {
    lines.push("Reply with a comment; its text is passed to the agent.");
  }
  const hasDefaults = ask.questions.some((q) => q.default !== undefined);
  if (hasDefaults) lines.push("`/defaults` accepts every default.");
  const only = several ? undefined : ask.questions[0];
  const timeout = only ? questionTimeout(ask, only) : undefined;
  if (timeout !== undefined) {
    lines.push(
      hasDefaults
        ? `If nobody answers within ${formatDuration(timeout)}, the default is taken and said here.`
        : `If nobody answers within ${formatDuration(timeout)}, a reminder is posted.`,
    );
  }
  lines.push("", renderMarker("ask", ask));
  return lines.join("\n");
}

function renderApprovalAsk(ask: Ask): string {
  const question = ask.questions[0]!;
  const lines = ["### 🔐 The agent asks for approval"];
  if (ask.context) lines.push("", ask.context);
  const needed = ask.approvers === undefined ? "the number of approvals this repository requires (1 unless `.github/escalation.yml` says more)" : `**${ask.approvers} approval${ask.approvers === 1 ? "" : "s"}**`;
  lines.push("", `**${question.text}**`, "", "---");
  lines.push(`Needs ${needed} from people who may answer here; the account that asked never counts, and each person counts once.`);
  lines.push("Reply `approve` (or `lgtm`, `yes`, 👍) or `deny` (or `no`, `reject`); words after it are kept as a note. Unless the repository's policy says otherwise, one denial decides.");
  const timeout = questionTimeout(ask, question);
  if (timeout !== undefined) lines.push(`If the approvals are not in within ${formatDuration(timeout)}, a reminder is posted.`);
  lines.push("", renderMarker("ask", ask));
  return lines.join("\n");
}

/**
 * Reads the ask marker of a comment body. Returns undefined when the body has no ask marker;
 * throws ProtocolError when it has one that is malformed.
 */
export function parseAskComment(body: string): Ask | undefined {
  const payload = findMarker(body, "ask");
  if (payload === undefined) return undefined;
  return validateAsk(payload);
}
