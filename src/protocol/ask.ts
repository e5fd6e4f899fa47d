import { randomBytes } from "node:crypto";
import { APPROVAL_KIND, AskSchema, type Ask, type Question } from "../domain.js";
import { ProtocolError, describeIssues } from "../errors.js";
import { formatDuration } from "./duration.js";
import { findMarker, renderMarker } from "./marker.js";

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
    if (ask.approvers !== undefined)
      throw new ProtocolError(`Invalid ask: approvers: only an ask of kind "${APPROVAL_KIND}" has approvers (kind is "${ask.kind}").`);
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
  const needed =
    ask.approvers === undefined
      ? "the number of approvals this repository requires (1 unless `.github/escalation.yml` says more)"
      : `**${ask.approvers} approval${ask.approvers === 1 ? "" : "s"}**`;
  lines.push("", `**${question.text}**`, "", "---");
  lines.push(`Needs ${needed} from people who may answer here; the account that asked never counts, and each person counts once.`);
  lines.push(
    "Reply `approve` (or `lgtm`, `yes`, 👍) or `deny` (or `no`, `reject`); words after it are kept as a note. Unless the repository's policy says otherwise, one denial decides.",
  );
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
