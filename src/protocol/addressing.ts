/**
 * Whom a reply speaks to, read from how it starts (README "Comment syntax for humans"): a reply
 * that starts by mentioning the app ("@escalation 2") answers, with the mention set aside; one that
 * starts by mentioning anyone else ("@alice do we need this?") is addressed to them, so it is
 * discussion; one that is nothing but mentions says nothing.
 */

export type Addressing = { to: "app" | "nobody"; text: string } | { to: "someone else"; login: string } | { to: "mentions only" };

// A GitHub login (letters, digits, hyphens), a team ("@org/team"), or an app's bot ("name[bot]").
const LEADING_MENTION = /^@([A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9_.-]+)?(?:\[bot\])?)(?![\w-])/;
// What may stand between a mention and what follows it: "@app, 2", "@app: answer", "**@app**".
const AFTER_MENTION = /^[\s,.:;!*_\-\u2013\u2014]*/;
// "@app answer: SQLite" says "answer" before the answer.
const ANSWER_WORD = /^answer\s*[:\-\u2013\u2014]\s*|^answer\s+(?=\S)/i;
const LEADING_EMPHASIS = /^[*_]+(?=@)/;

/** The names the app is mentioned by: its bot login ("escalation[bot]") and its slug ("escalation"), lower case. */
export function appMentionNames(botLogin: string): string[] {
  const lower = botLogin.toLowerCase();
  return [...new Set([lower, lower.replace(/\[bot\]$/, "")])];
}

/**
 * Reads the leading mentions of a reply's visible text; `appNames` are appMentionNames' (any case).
 * The first mention decides whom the reply is for; the mentions after it are copies ("@app @bob 2").
 */
export function addressingOf(visible: string, appNames: readonly string[]): Addressing {
  const text = visible.replace(LEADING_EMPHASIS, "");
  const first = LEADING_MENTION.exec(text);
  if (first === null) return { to: "nobody", text: visible };
  const rest = afterMentions(text);
  if (rest === "") return { to: "mentions only" };
  const login = first[1]!;
  if (!appNames.some((name) => name.toLowerCase() === login.toLowerCase())) return { to: "someone else", login };
  return { to: "app", text: rest.replace(ANSWER_WORD, "") };
}

/** The text after the leading mentions and what separates them from it. */
function afterMentions(text: string): string {
  let rest = text;
  for (let mention = LEADING_MENTION.exec(rest); mention !== null; mention = LEADING_MENTION.exec(rest))
    rest = rest.slice(mention[0].length).replace(AFTER_MENTION, "");
  return rest;
}

// Emoji (with skin tones, joiners and keycaps), emoji shortcodes (":tada:"), and "+1"/"-1".
const REACTION_ONLY = /^(?:[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u200D\uFE0F\u20E3\s]|:[a-z0-9_+-]+:|[+-]1\b)+[!.]*$/u;

/** Whether a reply is only a reaction: emoji, emoji shortcodes, "+1" or "-1". */
export function isReactionOnly(text: string): boolean {
  return text.trim() !== "" && REACTION_ONLY.test(text.trim());
}
