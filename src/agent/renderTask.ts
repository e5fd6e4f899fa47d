import { readFile } from "node:fs/promises";
import Mustache from "mustache";
import { AgentError } from "../errors.js";
import type { Gate, HumanNote } from "../gates/types.js";

export interface TaskInput {
  repo: string;
  round: number;
  issue: { number: number; title: string; body: string; url: string };
  gates: readonly Gate[];
  notes?: readonly HumanNote[];
}

/** Human text is set off as Markdown quotes so a reader (person or model) can tell it from instructions. */
export function quote(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return "> (empty)";
  return trimmed
    .split(/\r\n|\r|\n/)
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n");
}

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString().replace(/\.\d+Z$/, "Z") : "unknown time");

/** The view the spawn-task template sees. Only answered, resumed or cancelled gates are shown. */
export function taskView(input: TaskInput): Record<string, unknown> {
  const gates = input.gates
    .filter((gate) => gate.state !== "superseded")
    .map((gate) => ({
      round: gate.round,
      kindLabel: gate.ask.kind === "question" ? "the agent" : `the app (${gate.ask.kind})`,
      askedAt: iso(gate.askedAt),
      askUrl: gate.askUrl,
      context: gate.ask.context,
      questions: gate.ask.questions.map((question, index) => {
        const answer = gate.answers.find((a) => a.question === index);
        return {
          number: index + 1,
          text: question.text,
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
              }
            : undefined,
        };
      }),
    }));
  const notes = (input.notes ?? []).map((note) => ({ by: note.by, at: iso(note.at), url: note.url, quoted: quote(note.text) }));
  return {
    repo: input.repo,
    round: input.round,
    hasNotes: notes.length > 0,
    notes,
    issue: { ...input.issue, quotedBody: quote(input.issue.body || "(no description)") },
    hasHistory: gates.length > 0,
    gates,
  };
}

/** Renders the task text; the template is Mustache with HTML escaping off (the output is Markdown). */
export function renderTask(template: string, input: TaskInput): string {
  return Mustache.render(template, taskView(input), {}, { escape: (text: string) => text });
}

export async function loadTemplate(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new AgentError(`Cannot read the spawn-task template at ${path}: ${(error as Error).message}. Set TASK_TEMPLATE to a readable file.`, { cause: error });
  }
}
