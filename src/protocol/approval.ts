import type { ApprovalRule, Vote, VoteChoice } from "../domain.js";
import { addressingOf } from "./addressing.js";
import { shown } from "./echo.js";
import { visibleReplyText } from "./visibleText.js";

/**
 * Approval gates: an ask of kind "approval" needs M approvals from distinct allowed humans. This
 * module reads a vote from a reply, counts the votes against the policy and renders what the app
 * says back. Recording each person's vote exactly once is the gate records' job (Lua, src/store/gateScripts.ts).
 * The vote and rule types are in src/domain.ts.
 */
export interface Tally {
  approvals: Vote[];
  denials: Vote[];
  outcome?: "approved" | "denied";
}

const WORDS: Record<VoteChoice, readonly string[]> = {
  approve: ["approve", "approved", "lgtm", "yes", "y", "+1", ":+1:", ":thumbsup:", "👍"],
  deny: ["deny", "denied", "no", "n", "reject", "rejected", "-1", ":-1:", ":thumbsdown:", "👎"],
};
// The vote is the reply's first word, in any case, with punctuation or emphasis around it ("LGTM!",
// "Approved.", "**approve**", "yes, ship it"); a longer word is not a vote ("yesterday", "y'all", "nope").
const LEADING_EMPHASIS = /^[*_~`]+/;
const TRAILING_EMPHASIS = /[*_~`]+$/;
const TRAILING_PUNCTUATION = /[.,:;!?)]+$/;
const NOTE_SEPARATOR = /^[\s.,:;!?)\]*_~`\-\u2013\u2014]+/;
// Skin-tone modifiers and the emoji variation selector do not change a thumb's meaning.
const EMOJI_MODIFIERS = /[\u{1F3FB}-\u{1F3FF}\uFE0F]/gu;

/** The vote a reply casts, or undefined when its first word is not one. Words after it are its note. */
export function parseVote(body: string): { vote: VoteChoice; note?: string } | undefined {
  const text = visibleReplyText(body)
    .replace(/^\/answer(?:\s+1[.):]?)?\s+/i, "")
    .replace(EMOJI_MODIFIERS, "")
    .replace(LEADING_EMPHASIS, "");
  const token = /^\S*/u.exec(text)![0];
  for (const candidate of new Set([token, token.replace(TRAILING_PUNCTUATION, ""), token.split(/[.,:;!?]/)[0]!])) {
    const word = candidate.replace(TRAILING_EMPHASIS, "").replace(TRAILING_PUNCTUATION, "").toLowerCase() || candidate.toLowerCase();
    const vote = (Object.keys(WORDS) as VoteChoice[]).find((choice) => WORDS[choice].includes(word) || WORDS[choice].includes(candidate.toLowerCase()));
    if (vote === undefined) continue;
    const note = text.slice(candidate.length).replace(NOTE_SEPARATOR, "").trim();
    return note === "" ? { vote } : { vote, note };
  }
  return undefined;
}

/**
 * A reply's vote as the app counts it: a reply may address the app ("@app approve"); one addressed
 * to someone else is discussion, which casts no vote and earns no hint. `appNames` as in addressing.ts.
 */
export function readVote(body: string, appNames: readonly string[]): { vote: VoteChoice; note?: string } | "discussion" | undefined {
  const addressing = addressingOf(visibleReplyText(body), appNames);
  if (addressing.to === "someone else") return "discussion";
  return addressing.to === "mentions only" ? undefined : parseVote(addressing.text);
}

/** Counts one vote per person (the newest) against the rule; the outcome is set once the gate resolves. */
export function tally(votes: readonly Vote[], rule: ApprovalRule): Tally {
  const latest = new Map<string, Vote>();
  for (const vote of [...votes].sort((a, b) => a.at - b.at || a.commentId - b.commentId)) latest.set(vote.login.toLowerCase(), vote);
  const all = [...latest.values()];
  const approvals = all.filter((v) => v.vote === "approve");
  const denials = all.filter((v) => v.vote === "deny");
  const denyAt = rule.policy === "any-deny" ? 1 : rule.required;
  const outcome = denials.length >= denyAt ? "denied" : approvals.length >= rule.required ? "approved" : undefined;
  return { approvals, denials, ...(outcome ? { outcome } : {}) };
}

const names = (votes: readonly Vote[]) => (votes.length === 0 ? "none yet" : votes.map((v) => `@${v.login}`).join(", "));

/** "Approvals 1/2: @alice" (and the denials, when a majority policy is counting them). */
export function tallyLine(t: Tally, rule: ApprovalRule): string {
  const denials = rule.policy === "majority" && t.denials.length > 0 ? ` · Denials ${t.denials.length}/${rule.required}: ${names(t.denials)}` : "";
  return `Approvals ${t.approvals.length}/${rule.required}: ${names(t.approvals)}${denials}`;
}

/** The acknowledgement of a vote that did not resolve the gate. `repeated`: that person's vote was already counted. */
export function renderVoteAck(by: string, vote: VoteChoice, t: Tally, rule: ApprovalRule, repeated = false): string {
  const head = repeated
    ? `@${by} your ${vote === "approve" ? "approval" : "denial"} was already counted; it counts once.`
    : `@${by} ${vote === "approve" ? "approved" : "denied"}.`;
  const left = rule.required - t.approvals.length;
  return `🗳️ ${head} ${tallyLine(t, rule)}. Waiting for ${left} more approval${left === 1 ? "" : "s"}.`;
}

/** The acknowledgement of the vote that resolved the gate: the outcome, who decided, and that the agent resumes with it. */
export function renderResolved(t: Tally, rule: ApprovalRule): string {
  if (t.outcome === "denied") {
    const deciders = t.denials.map((v) => `@${v.login}${v.note ? ` (${shown(v.note)})` : ""}`).join(", ");
    const why = rule.policy === "any-deny" ? "a single denial decides" : `${t.denials.length} of ${rule.required} denials`;
    return `⛔ Denied by ${deciders} (policy ${rule.policy}: ${why}). ${tallyLine(t, rule)}. The agent resumes with the denial.`;
  }
  return `✅ Approved. ${tallyLine(t, rule)}. The agent resumes with the approval.`;
}

/** A vote after the gate was resolved (or a racing one that lost). */
export function renderLateVote(by: string, answeredBy: string | undefined): string {
  return `@${by} this approval was already resolved${answeredBy ? ` (by the vote of @${answeredBy})` : ""}; your vote was not counted. \`/retry\` runs the agent again, and it asks anew.`;
}

/** The hint for a reply on an approval gate that casts no vote (sent once per person and gate). */
export function renderNotAVote(by: string): string {
  return `@${by} your comment was not counted as a vote. Reply \`approve\` (or \`lgtm\`, \`yes\`, 👍) or \`deny\` (or \`no\`, \`reject\`), optionally followed by a note.`;
}
