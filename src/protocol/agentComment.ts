/**
 * The one place that knows how an agent's own comment (`escalate comment`) reads on the issue: a
 * heading that says whose words they are, then the text. The app posts it as its bot, so the text
 * may carry no hidden marker the loop would read as the app's or as an ask: every HTML comment
 * opener is shown as text instead.
 */

/** GitHub takes 65,536 characters; the heading needs a few. */
export const MAX_AGENT_COMMENT_CHARS = 60_000;

/** The comment the app posts for the agent of `round`. */
export function renderAgentComment(text: string, round: number): string {
  return [`> 🤖 **The agent wrote** (round ${round}):`, "", text.replaceAll("<!--", "&lt;!--")].join("\n");
}
