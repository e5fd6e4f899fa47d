import { visibleReplyText } from "./visibleText.js";

/**
 * Slash commands a human types as the first line of a comment. Only the first visible line counts,
 * so a command mentioned later in prose, or quoted from an earlier comment, is never run.
 */
export const COMMAND_NAMES = ["agent", "defaults", "note", "stop", "cancel", "retry", "status", "reopen", "answer", "discuss", "help"] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];
export type Command = { name: CommandName; args: string } | { name: "unknown"; raw: string };

// A short alphabetic word, optionally followed by punctuation ("/agent."); anything else after the
// slash ("/usr/bin", "/2024") is prose that happens to start with a slash.
const COMMAND_WORD = /^([A-Za-z]{1,20})\p{P}*$/u;

export function parseCommand(body: string): Command | undefined {
  const visible = visibleReplyText(body);
  const token = /^\/(\S*)/.exec(visible)?.[1];
  if (token === undefined || token.includes("/")) return undefined;
  const word = COMMAND_WORD.exec(token)?.[1];
  if (word === undefined) return undefined;
  const name = word.toLowerCase();
  if (!isCommandName(name)) return { name: "unknown", raw: word };
  return { name, args: visible.slice(1 + token.length).trim() };
}

function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}
