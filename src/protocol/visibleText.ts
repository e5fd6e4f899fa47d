/**
 * Reduces a human's comment to the words they wrote for us. Replies arrive through the web UI
 * and by e-mail, so they may carry quoted copies of our ask (markers included), mail headers and
 * signatures; none of that may be mistaken for an answer or a command.
 */

import { cleanHumanText } from "./humanText.js";

// Zero-width and bidi-control characters render as nothing, so they could hide a command or
// split a word the human sees whole.
const INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

const QUOTED = /^\s*>/;
const SIGNATURE = /^\s*--$/;
const ORIGINAL_MESSAGE = /^\s*-{2,}\s*Original Message\s*-{2,}$/i;
const ON_WROTE = /^\s*On\s.*\bwrote:$/i;
const ON = /^\s*On\s/i;
const WROTE = /\bwrote:$/i;
// Outlook bolds the header names in HTML mail that GitHub converts to Markdown.
const FROM_HEADER = /^\s*(?:\*\*)?From:/i;
const MAIL_HEADER = /^\s*(?:\*\*)?(?:Sent|To|Date|Subject|Cc):/i;
const OUTLOOK_RULE = /^\s*_{10,}$/;

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, "");
}

export function visibleReplyText(body: string): string {
  // What a person sees on the rendered issue (src/protocol/humanText.ts), then our reply rules.
  const text = cleanHumanText(body).text.replace(/\r\n?/g, "\n");
  // Tail detection runs on the final line sequence (trimmed, unquoted) so that a second pass finds
  // nothing new: the function must be idempotent.
  const lines = text
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => !QUOTED.test(line));
  return lines
    .slice(0, quotedTailStart(lines))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * Index of the first line of an e-mail quoted tail or signature; `lines.length` when there is none.
 * Walks backwards so that "a mail header follows in this block" is known in one linear pass.
 */
function quotedTailStart(lines: readonly string[]): number {
  let start = lines.length;
  let headerBelow = false;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!;
    if (line === "") headerBelow = false;
    if (startsTail(line, lines[i + 1])) start = i;
    // A "From:" line starts a tail only when mail headers follow it, so "From: the config" is an answer.
    if (FROM_HEADER.test(line) && headerBelow) start = i > 0 && OUTLOOK_RULE.test(lines[i - 1]!) ? i - 1 : i;
    if (MAIL_HEADER.test(line)) headerBelow = true;
  }
  return start;
}

function startsTail(line: string, next: string | undefined): boolean {
  if (SIGNATURE.test(line) || ORIGINAL_MESSAGE.test(line) || ON_WROTE.test(line)) return true;
  // Mail clients wrap a long "On <date>, <name> <address> wrote:" over two lines.
  return next !== undefined && ON.test(line) && WROTE.test(next);
}
