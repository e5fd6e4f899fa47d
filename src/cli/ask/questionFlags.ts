import type { parseArgs } from "node:util";
import { parseDuration } from "../../protocol/duration.js";
import { UsageError } from "../usage.js";

export interface QuestionDraft {
  text: string;
  options: string[];
  default?: string;
  timeoutSeconds?: number;
}

/** Turns ordered flags into questions: --option, --default and --timeout belong to the last --question. */
export function questionsFrom(tokens: ReturnType<typeof parseArgs>["tokens"]): { questions: QuestionDraft[]; askTimeout?: number } {
  const questions: QuestionDraft[] = [];
  let askTimeout: number | undefined;
  for (const token of tokens ?? []) {
    if (token.kind !== "option" || typeof token.value !== "string") continue;
    const current = questions.at(-1);
    switch (token.name) {
      case "question":
        questions.push({ text: token.value, options: [] });
        break;
      case "option":
        if (!current) throw new UsageError("--option must follow the --question it belongs to.");
        current.options.push(token.value);
        break;
      case "default":
        if (!current) throw new UsageError("--default must follow the --question it belongs to.");
        current.default = token.value;
        break;
      case "timeout": {
        const seconds = parseDuration(token.value, "--timeout");
        if (current) current.timeoutSeconds = seconds;
        else askTimeout = seconds;
        break;
      }
    }
  }
  return { questions, askTimeout };
}
