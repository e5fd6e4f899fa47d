/**
 * Reduces a human's comment to the words they wrote for us. Replies arrive through the web UI
 * and by e-mail, so they may carry quoted copies of our ask (markers included), mail headers and
 * signatures; none of that may be mistaken for an answer or a command.
 */

import { codeLineFlags } from "./codeBlocks.js";
import { isOriginalMessageRule, isOutlookField, isOutlookFromField, isOutlookRule, startsWroteHeader } from "./emailReply.js";
import { cleanHumanText } from "./humanText.js";

// Zero-width and bidi-control characters render as nothing, so they could hide a command or
// split a word the human sees whole.
const INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

const QUOTED = /^\s*>/;
const SIGNATURE = /^\s*--$/;

interface Line {
  text: string;
  /** Inside a code block (src/protocol/codeBlocks.ts): kept as written, never a quote or a tail. */
  code: boolean;
}

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, "");
}

export function visibleReplyText(body: string): string {
  // What a person sees on the rendered issue (src/protocol/humanText.ts), then our reply rules.
  const all = cleanHumanText(body)
    .text.replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd());
  const code = codeLineFlags(all);
  // Tail detection runs on the final line sequence (unquoted) so that a second pass finds nothing
  // new: the function must be idempotent.
  const lines: Line[] = all.map((text, i) => ({ text, code: code[i]! })).filter((line) => line.code || !QUOTED.test(line.text));
  const kept = lines.slice(0, quotedTailStart(lines));
  while (kept.length > 0 && kept[0]!.text === "") kept.shift();
  // The first line loses its indentation unless that indentation makes it code.
  if (kept.length > 0 && !kept[0]!.code) kept[0] = { ...kept[0]!, text: kept[0]!.text.trimStart() };
  return kept
    .map((line) => line.text)
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd();
}

/**
 * Index of the first line of an e-mail quoted tail or signature; `lines.length` when there is none.
 * Walks backwards so that "a mail header follows in this block" is known in one linear pass. The
 * header forms of every language are src/protocol/emailReply.ts's.
 */
function quotedTailStart(lines: readonly Line[]): number {
  let start = lines.length;
  let headerBelow = false;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const { text: line, code } = lines[i]!;
    if (line === "" || code) headerBelow = false;
    if (code) continue;
    const next = lines[i + 1];
    if (startsTail(line, next?.code ? undefined : next?.text)) start = i;
    // A "From:" line starts a tail only when mail headers follow it, so "From: the config" is an answer.
    if (isOutlookFromField(line) && headerBelow) start = i > 0 && isOutlookRule(lines[i - 1]!.text) ? i - 1 : i;
    if (isOutlookField(line)) headerBelow = true;
  }
  return start;
}

function startsTail(line: string, next: string | undefined): boolean {
  return SIGNATURE.test(line) || isOriginalMessageRule(line) || startsWroteHeader(line, next);
}
