import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { describeIssues } from "../errors.js";
import { askHumanInput, draftFromTool } from "../cli/commands/mcp.js";
import type { AskDraft } from "../cli/ask/submitAsk.js";

/**
 * Where, relative to the agent's working directory, an agent that cannot run commands (aider) writes
 * its question: inside the checkout, because an editing-only agent can write nothing else. It is not
 * in `.git/info/exclude`: aider refuses to edit a git-ignored path. The app removes it before the
 * save at exit, so it is never committed.
 */
export const ASK_FILE = join(".escalation", "ask.json");

/** The ask file's format: the `ask_human` tool's arguments, as JSON. */
const AskFileSchema = z.object(askHumanInput).strict();

/** What the agent left in the ask file; `digest` names its exact text. */
export type AskFileContent = { kind: "none" } | { kind: "ask"; draft: AskDraft; digest: string } | { kind: "invalid"; problem: string };

/** Removes an ask file left from an earlier attempt (it was posted, or its round was cut short). */
export async function clearAskFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

/**
 * Reads the ask file the agent left, and removes it whatever it holds. An invalid one is described so
 * the issue can say what to fix: the round then counts as one that did not ask.
 */
export async function takeAskFile(path: string): Promise<AskFileContent> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "none" };
    return { kind: "invalid", problem: `it could not be read (${(error as Error).message})` };
  } finally {
    await rm(path, { force: true });
  }
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 16);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: "invalid", problem: `it is not JSON (${(error as Error).message})` };
  }
  const parsed = AskFileSchema.safeParse(json);
  if (!parsed.success) return { kind: "invalid", problem: describeIssues(parsed.error.issues) };
  try {
    return { kind: "ask", draft: draftFromTool(parsed.data), digest };
  } catch (error) {
    return { kind: "invalid", problem: (error as Error).message };
  }
}
