import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import Mustache from "mustache";
import { APPROVAL_KIND, CORRECTION_KIND, type ApprovalRecord, type Gate, type HumanNote, type LineRef } from "../domain.js";
import { AgentError } from "../errors.js";
import type { PullRequestMode } from "../config/repoConfig.js";
import { cleanHumanText } from "../protocol/humanText.js";
import { stripHiddenCharacters } from "../protocol/humanText/hiddenCharacters.js";

export interface TaskInput {
  repo: string;
  round: number;
  /**
   * `author` is the login that opened the issue, when known. `bodyChangedBy`: the body GitHub shows
   * was last changed by `editor`, not its author; `body` is then the author's own last version
   * (`kept`) or, when that is unknown, left out (src/gates/issueBody.ts).
   */
  issue: { number: number; title: string; body: string; url: string; author?: string; bodyChangedBy?: { editor: string; kept: boolean } };
  gates: readonly Gate[];
  notes?: readonly HumanNote[];
  /** The checkout the agent works in (src/workspace/), when the workspace is on. */
  workspace?: { branch: string; base: string; divertedTo?: string; pullRequest: PullRequestMode };
  /** Whether the agent's tool was given the `ask_human` MCP tool (a recipe's config, src/agent/recipes/). */
  askHuman?: boolean;
}

/**
 * The exact text a quote block holds: trimmed, line breaks as "\n", "(empty)" for nothing. The
 * audit hash of a folded entry is the SHA-256 of this text.
 */
export function foldedText(text: string): string {
  return text.trim().replace(/\r\n?/g, "\n") || "(empty)";
}

/** Human text is set off as Markdown quotes so a reader (person or model) can tell it from instructions. */
export function quote(text: string): string {
  return foldedText(text)
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n");
}

/** SHA-256 (64 hex digits) of the text a quote block of `text` holds; see foldedText. */
export function foldedSha256(text: string): string {
  return createHash("sha256").update(foldedText(text), "utf8").digest("hex");
}

/** One line of the task's audit: what was folded, from where, by whom, and the hash of its text. */
export interface AuditEntry {
  what: string;
  by: string;
  url: string;
  sha256: string;
  remark?: string;
}

function auditOf(what: string, by: string, url: string, text: string, recorded?: string): AuditEntry {
  const sha256 = foldedSha256(text);
  const remark =
    recorded !== undefined && recorded !== sha256
      ? `the text was rebuilt from the status comment, which keeps only its start; the original had sha256 ${recorded}`
      : undefined;
  return { what, by, url, sha256, ...(remark ? { remark } : {}) };
}

/** Who asked, by the ask's kind (the app's own ladder kinds and corrections are named below). */
const KIND_LABELS: Record<string, string> = { question: "the agent", [APPROVAL_KIND]: "the agent (asking for approval)" };

/** An approval's outcome for the task: decided how, by whom, and each vote with its note quoted. */
function approvalView(record: ApprovalRecord): Record<string, unknown> {
  const approvals = record.votes.filter((v) => v.vote === "approve").length;
  return {
    outcome: record.outcome.toUpperCase(),
    approvals,
    required: record.required,
    policy: record.policy,
    votes: record.votes.map((v) => ({
      login: v.login,
      verb: v.vote === "approve" ? "approved" : "denied",
      at: iso(v.at),
      url: v.url ?? "",
      quotedNote: v.note ? quote(v.note) : undefined,
    })),
  };
}

/** "`src/db.ts`, line 12 of the new version": a file name is data too, shown in a code span it cannot leave. */
function lineRefText(ref: LineRef): string {
  const path = stripHiddenCharacters(ref.path.replace(/[\r\n]+/g, " ")).text.replace(/`/g, "'");
  const version = ref.side === "LEFT" ? " of the old version" : ref.side === "RIGHT" ? " of the new version" : "";
  return `\`${path}\`${ref.line ? `, line ${ref.line}${version}` : ""}`;
}

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString().replace(/\.\d+Z$/, "Z") : "unknown time");

/** The view the spawn-task template sees. Only answered, resumed or cancelled gates are shown. */
export function taskView(input: TaskInput): Record<string, unknown> {
  // What a person sees on the rendered issue: hidden content never reaches the agent.
  const body = cleanHumanText(input.issue.body).text || "(no description)";
  const author = input.issue.author ?? "unknown";
  const changed = input.issue.bodyChangedBy;
  // Another account's text is never quoted as the author's: without the author's own version, none is.
  const leftOut = changed !== undefined && !changed.kept;
  const audit: AuditEntry[] = leftOut ? [] : [auditOf("the issue's description", author, input.issue.url, body)];
  const bodyNote = !changed
    ? undefined
    : changed.kept
      ? `@${changed.editor} changed this description on GitHub; above is @${author}'s own last version, the one that counts.`
      : `The description was left out: @${changed.editor} changed it on GitHub, and @${author}'s own version could not be found. Ask on the issue if you need it.`;
  const gates = input.gates
    // A superseded question is left out, unless a human answered it anyway (README, "Stale questions").
    .filter((gate) => gate.state !== "superseded" || gate.answers.length > 0)
    .map((gate) => ({
      round: gate.round,
      supersededBecause: gate.state === "superseded" ? (gate.closedReason ?? "it no longer stood") : undefined,
      kindLabel: KIND_LABELS[gate.ask.kind] ?? (gate.ask.kind === CORRECTION_KIND ? `human @${gate.askedBy} (a correction)` : `the app (${gate.ask.kind})`),
      askedAt: iso(gate.askedAt),
      askUrl: gate.askUrl,
      context: gate.ask.context,
      questions: gate.ask.questions.map((question, index) => {
        const answer = gate.answers.find((a) => a.question === index);
        if (answer) {
          const what = `round ${gate.round}, answer to Q${index + 1}${answer.source === "default" ? " (the default taken)" : ""}`;
          audit.push(auditOf(what, answer.by, answer.url ?? gate.askUrl, answer.text, answer.sha256));
          if (answer.note)
            audit.push(auditOf(`round ${gate.round}, note with the choice for Q${index + 1}`, answer.by, answer.url ?? gate.askUrl, answer.note));
          for (const vote of answer.approval?.votes ?? []) {
            if (vote.note) audit.push(auditOf(`round ${gate.round}, note with the vote of @${vote.login}`, vote.login, vote.url ?? gate.askUrl, vote.note));
          }
        }
        return {
          number: index + 1,
          text: question.text,
          // A deleted answer: who and when only, never its text (README, "Editing and deleting").
          withdrawn: (gate.withdrawn ?? []).filter((w) => w.questions.includes(index)).map((w) => ({ by: w.by, at: iso(w.at) })),
          hasOptions: question.options.length > 0,
          optionList: question.options.map((o, i) => `${i + 1}. ${o}`).join("; "),
          gateState: gate.state,
          answered: answer
            ? {
                by: answer.by,
                answeredAt: iso(answer.at),
                answerUrl: answer.url ?? gate.askUrl,
                option: answer.option,
                assumption: answer.source === "default",
                quotedAnswer: quote(answer.text),
                note: answer.note,
                quotedNote: answer.note ? quote(answer.note) : undefined,
                approval: answer.approval ? approvalView(answer.approval) : undefined,
                about: answer.about ? lineRefText(answer.about) : undefined,
              }
            : undefined,
        };
      }),
    }));
  const notes = (input.notes ?? []).map((note) => {
    if (note.withdrawn) return { by: note.by, at: iso(note.at), url: note.url, withdrawn: true };
    audit.push(auditOf(`note from ${iso(note.at)}`, note.by, note.url, note.text, note.sha256));
    return { by: note.by, at: iso(note.at), url: note.url, quoted: quote(note.text) };
  });
  return {
    repo: input.repo,
    round: input.round,
    hasNotes: notes.length > 0,
    notes,
    // The title is plain text on GitHub; only characters nobody sees (and line breaks) are removed.
    issue: { ...input.issue, title: stripHiddenCharacters(input.issue.title.replace(/[\r\n]+/g, " ")).text, quotedBody: leftOut ? "" : quote(body), bodyNote },
    hasHistory: gates.length > 0,
    gates,
    audit,
    workspace: input.workspace && {
      ...input.workspace,
      appOpensPullRequest: input.workspace.pullRequest === "app",
      agentOpensPullRequest: input.workspace.pullRequest === "agent",
    },
    askHuman: input.askHuman === true,
  };
}

/** Renders the task text; the template is Mustache with HTML escaping off (the output is Markdown). */
export function renderTask(template: string, input: TaskInput): string {
  return Mustache.render(template, taskView(input), {}, { escape: (text: string) => text });
}

const templates = new Map<string, string>();

/**
 * The template at `path`, read once per process: every spawn renders it, and a read is a trip to
 * the thread pool before the fork. A failed read is not remembered. Edits take effect on restart.
 */
export async function cachedTemplate(path: string): Promise<string> {
  const cached = templates.get(path);
  if (cached !== undefined) return cached;
  const template = await loadTemplate(path);
  templates.set(path, template);
  return template;
}

export async function loadTemplate(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new AgentError(`Cannot read the spawn-task template at ${path}: ${(error as Error).message}. Set TASK_TEMPLATE to a readable file.`, {
      cause: error,
    });
  }
}
