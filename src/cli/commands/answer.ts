import { parseArgs } from "node:util";
import { z } from "zod";
import type { Gate } from "../../domain.js";
import { EscalationError } from "../../errors.js";
import { postIssueComment } from "../github.js";
import { PROXY_ENV_SHAPE } from "../proxyFetch.js";
import { withStore } from "../store.js";
import { EnvironmentError, UsageError, invalidEnvironment } from "../usage.js";

const AnswerEnv = z.object({
  GITHUB_TOKEN: z.string().min(1).optional(),
  GITHUB_API_URL: z.string().url().default("https://api.github.com"),
  ...PROXY_ENV_SHAPE,
});

export type AnswerMode =
  { mode: "choice"; choice: number } | { mode: "text"; text: string } | { mode: "defaults" } | { mode: "raw"; answers: Map<number, string> };

export interface AnswerResult {
  gate: Gate;
  body: string;
  url: string;
}

/** Reads `--raw '{"1":"Postgres","2":"yes"}'`: question numbers to answers. */
function parseRaw(text: string): Map<number, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--raw must be a JSON object like {"1":"Postgres","2":"yes"}: ${(error as Error).message}`, { cause: error });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`--raw must be a JSON object like {"1":"Postgres","2":"yes"} (got ${JSON.stringify(value)}).`);
  }
  const answers = new Map<number, string>();
  for (const [key, raw] of Object.entries(value)) {
    if (!/^\d+$/.test(key) || Number(key) < 1) throw new UsageError(`--raw: key ${JSON.stringify(key)} must be a question number (1, 2, …).`);
    if ((typeof raw !== "string" && typeof raw !== "number") || String(raw).trim() === "") {
      throw new UsageError(`--raw: the answer to question ${key} must be a non-empty string.`);
    }
    answers.set(Number(key), String(raw).trim());
  }
  if (answers.size === 0) throw new UsageError("--raw must answer at least one question.");
  return answers;
}

function parseMode(values: { choice?: string; text?: string; defaults?: boolean; raw?: string }): AnswerMode {
  const given = (["choice", "text", "defaults", "raw"] as const).filter((k) => values[k] !== undefined && values[k] !== false);
  if (given.length !== 1) {
    throw new UsageError(
      `Give exactly one of --choice N, --text TEXT, --defaults or --raw JSON${given.length > 1 ? ` (got ${given.map((g) => `--${g}`).join(", ")})` : ""}.`,
    );
  }
  if (values.choice !== undefined) {
    if (!/^\d+$/.test(values.choice.trim()) || Number(values.choice) < 1)
      throw new UsageError(`--choice must be an option number (got ${JSON.stringify(values.choice)}).`);
    return { mode: "choice", choice: Number(values.choice) };
  }
  if (values.text !== undefined) {
    if (values.text.trim() === "") throw new UsageError("--text must not be empty.");
    return { mode: "text", text: values.text };
  }
  if (values.raw !== undefined) return { mode: "raw", answers: parseRaw(values.raw) };
  return { mode: "defaults" };
}

/**
 * The comment that gives this answer, exactly as a human would type it on GitHub, so the app's
 * reply parser (src/protocol/reply.ts) reads it the same way. Checks the answer fits the gate.
 */
export function answerComment(gate: Gate, answer: AnswerMode): string {
  const questions = gate.ask.questions;
  switch (answer.mode) {
    case "choice": {
      if (questions.length > 1) {
        throw new UsageError(`Gate ${gate.id} has ${questions.length} questions; --choice answers a single one. Use --raw '{"1":"…","2":"…"}'.`);
      }
      const options = questions[0]!.options;
      if (options.length === 0) throw new UsageError(`Gate ${gate.id}'s question has no options; answer with --text.`);
      if (answer.choice > options.length)
        throw new UsageError(`--choice ${answer.choice}: the question has ${options.length} option${options.length === 1 ? "" : "s"} (1-${options.length}).`);
      return String(answer.choice);
    }
    case "text":
      return answer.text;
    case "defaults": {
      const answered = new Set(gate.answers.map((a) => a.question));
      const missing = questions.map((q, i) => (q.default === undefined && !answered.has(i) ? i + 1 : 0)).filter((n) => n > 0);
      if (missing.length === questions.length && questions.length === 1) throw new UsageError(`Gate ${gate.id}'s question has no default.`);
      if (missing.length > 0)
        throw new UsageError(
          `--defaults: question${missing.length === 1 ? "" : "s"} ${missing.join(", ")} of gate ${gate.id} ha${missing.length === 1 ? "s" : "ve"} no default.`,
        );
      return "/defaults";
    }
    case "raw": {
      for (const n of answer.answers.keys()) {
        if (n > questions.length)
          throw new UsageError(`--raw: gate ${gate.id} has ${questions.length} question${questions.length === 1 ? "" : "s"}; there is no question ${n}.`);
      }
      // One question takes the whole comment: "1. SQLite" would read as option 1 with a note.
      if (questions.length === 1) return answer.answers.get(1)!;
      return [...answer.answers.entries()]
        .sort(([a], [b]) => a - b)
        .map(([n, text]) => `${n}. ${text}`)
        .join("\n");
    }
  }
}

/** `escalate answer GATE (--choice N | --text TEXT | --defaults | --raw JSON)`. */
export async function answerCommand(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<AnswerResult> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { choice: { type: "string" }, text: { type: "string" }, defaults: { type: "boolean" }, raw: { type: "string" } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const [gateId, ...extra] = parsed.positionals;
  if (!gateId) throw new UsageError("answer needs the gate id (see `escalate status`).");
  if (extra.length > 0) throw new UsageError(`answer takes one gate id (got also ${extra.map((e) => JSON.stringify(e)).join(", ")}).`);
  const mode = parseMode(parsed.values);
  const e = AnswerEnv.safeParse(env);
  if (!e.success) throw invalidEnvironment(e.error.issues);
  if (!e.data.GITHUB_TOKEN)
    throw new EnvironmentError("GITHUB_TOKEN is not set: use your own token (a user with write access to the repository), so the answer is yours.", [
      "GITHUB_TOKEN",
    ]);
  const gate = await withStore(env, async ({ store, prefix }) => {
    const found = await store.gates.getGate(gateId);
    if (!found) throw new EscalationError(`No gate ${JSON.stringify(gateId)} in Redis (prefix "${prefix}"); \`escalate status\` lists the open ones.`);
    return found;
  });
  if (gate.state !== "open") {
    throw new EscalationError(
      `Gate ${gate.id} on ${gate.repo}#${gate.issue} is ${gate.state}${gate.answeredBy ? ` (answered by @${gate.answeredBy})` : ""}; there is nothing to answer.`,
    );
  }
  const body = answerComment(gate, mode);
  const url = await postIssueComment(
    { token: e.data.GITHUB_TOKEN, apiUrl: e.data.GITHUB_API_URL, proxy: e.data },
    gate.repo,
    gate.issue,
    body,
    "GITHUB_TOKEN is not set.",
  );
  out(url);
  return { gate, body, url };
}
