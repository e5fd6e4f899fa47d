import type { Gate } from "../domain.js";
import { questionTimeout } from "../protocol/ask.js";
import { formatDuration } from "../protocol/duration.js";

/** A Block Kit block (the subset we build). */
export type Block = Record<string, unknown>;

export interface SlackMessage {
  /** The notification text and the fallback where blocks are not shown. */
  text: string;
  blocks: Block[];
}

/** Slack's mrkdwn needs only &, < and > escaped; everything else is literal. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** A <url|label> link, or the bare label when the URL is not http(s) or would break the syntax. */
function mrkdwnLink(url: string, label: string): string {
  return /^https?:\/\/[^\s|<>]+$/i.test(url) ? `<${url}|${escapeMrkdwn(label).replace(/\|/g, "¦")}>` : escapeMrkdwn(label);
}

function issueUrlOf(gate: Gate): string {
  const hash = gate.askUrl.indexOf("#");
  return hash >= 0 ? gate.askUrl.slice(0, hash) : gate.askUrl;
}

/** How the gate ended, for the updated message; undefined while it is open. */
function outcome(gate: Gate): { emoji: string; headline: string; detail: string } | undefined {
  switch (gate.state) {
    case "open":
      return undefined;
    case "answered":
    case "resuming":
    case "resumed": {
      const byDefault = gate.answers.length > 0 && gate.answers.every((a) => a.source === "default");
      const given = gate.answers
        .slice()
        .sort((a, b) => a.question - b.question)
        .map((a) => `${gate.ask.questions.length > 1 ? `${a.question + 1}. ` : ""}${a.option ?? a.text}`)
        .join("; ");
      return byDefault
        ? { emoji: "⏱️", headline: "Timed out: defaults taken", detail: `The defaults were taken${given ? `: ${given}` : ""}.` }
        : { emoji: "✅", headline: "Answered", detail: `Answered by @${gate.answeredBy ?? "someone"}${given ? `: ${given}` : ""}.` };
    }
    case "cancelled":
      return { emoji: "🚫", headline: "Cancelled", detail: `Cancelled${gate.closedReason ? `: ${gate.closedReason}` : ""}.` };
    case "superseded":
      return { emoji: "↪️", headline: "Superseded", detail: `Superseded${gate.closedReason ? `: ${gate.closedReason}` : " by a newer question"}.` };
    default:
      return { emoji: "ℹ️", headline: String(gate.state), detail: `Gate state: ${String(gate.state)}.` };
  }
}

/**
 * The Slack message mirroring a gate: the questions with their options and defaults and a link to
 * answer on GitHub; once settled, the same message says how it ended. Answers are given on GitHub.
 */
export function renderGateMessage(gate: Gate, title?: string): SlackMessage {
  const where = `${gate.repo}#${gate.issue}`;
  const ended = outcome(gate);
  const headline = ended ? `${ended.emoji} ${ended.headline}: ${where}` : `🙋 An agent needs input on ${where}`;
  const blocks: Block[] = [
    { type: "header", text: { type: "plain_text", text: clip(headline, 150), emoji: true } },
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text: clip(
          `*${mrkdwnLink(issueUrlOf(gate), `${where}${title ? ` ${title}` : ""}`)}*\n${escapeMrkdwn(gate.ask.kind)} · round ${gate.round} · asked by ${escapeMrkdwn(gate.askedBy)}`,
          3000,
        ),
      },
    },
  ];
  if (ended) blocks.push({ type: "section", text: { type: "mrkdwn", text: clip(`*${escapeMrkdwn(ended.detail)}*`, 3000) } });
  if (gate.ask.context) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: clip(escapeMrkdwn(gate.ask.context), 3000) }] });
  const several = gate.ask.questions.length > 1;
  // 50 blocks at most: header, issue, outcome, context, up to 20 questions, the link.
  gate.ask.questions.forEach((question, index) => {
    const lines = [`*${several ? `${index + 1}. ` : ""}${escapeMrkdwn(question.text)}*`];
    question.options.forEach((option, i) => lines.push(`${i + 1}. ${escapeMrkdwn(option)}${option === question.default ? " _(default)_" : ""}`));
    if (question.default !== undefined && !question.options.includes(question.default)) lines.push(`_Default:_ ${escapeMrkdwn(question.default)}`);
    const timeout = questionTimeout(gate.ask, question);
    if (timeout !== undefined && !ended) lines.push(`_Times out after ${formatDuration(timeout)}._`);
    blocks.push({ type: "section", text: { type: "mrkdwn", text: clip(lines.join("\n"), 3000) } });
  });
  if (/^https?:\/\//i.test(gate.askUrl)) {
    blocks.push({
      type: "actions",
      elements: [
        { type: "button", text: { type: "plain_text", text: ended ? "View on GitHub" : "Answer on GitHub" }, url: gate.askUrl, action_id: "open_gate" },
      ],
    });
  }
  const first = gate.ask.questions[0]?.text ?? "";
  const text = ended ? `${ended.headline}: ${where} (${clip(first, 200)})` : `An agent needs input on ${where}: ${clip(first, 200)}`;
  return { text: escapeMrkdwn(text), blocks };
}
