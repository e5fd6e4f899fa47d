/**
 * The `/status` reply: the issue's round, its notes, and its last question, with who answered or
 * may answer it (an approval's tally under its policy).
 */
import type { RepoSettings } from "../config/repoConfig.js";
import type { CommentEvent } from "../payloads.js";
import { tally, tallyLine } from "../protocol/approval.js";
import { formatDuration } from "../protocol/duration.js";
import type { Services } from "../services/services.js";
import { whoCanAnswer } from "./answerers.js";
import { approvalRule, isApprovalGate } from "./approvalGate.js";

/** What the reply reads: the last gate and its votes, the round, the notes. */
export interface StatusPorts {
  gates: Pick<Services["gates"], "lastGate" | "votes">;
  rounds: Pick<Services["rounds"], "currentRound">;
  notes: Pick<Services["notes"], "notes">;
}

export async function describeStatus(services: StatusPorts, event: CommentEvent, settings: RepoSettings): Promise<string> {
  const ref = { repo: event.repo, issue: event.issue.number };
  const [gate, round, notes] = await Promise.all([services.gates.lastGate(ref), services.rounds.currentRound(ref), services.notes.notes(ref)]);
  const lines = [`**Escalation status** · round ${round} · ${notes.length} note(s) from humans`];
  if (!gate) {
    lines.push("No question has been asked on this issue.");
  } else if (gate.state === "open") {
    lines.push(`Open question (gate ${gate.id}, asked ${formatDuration((Date.now() - gate.askedAt) / 1000)} ago by @${gate.askedBy}):`);
    if (isApprovalGate(gate)) {
      const rule = approvalRule(gate.ask, settings);
      lines.push(`- ${gate.ask.questions[0]!.text} — ${tallyLine(tally(await services.gates.votes(gate.id), rule), rule)} (policy ${rule.policy})`);
      return lines.join("\n");
    }
    gate.ask.questions.forEach((q, i) => {
      const answer = gate.answers.find((a) => a.question === i);
      lines.push(
        `- ${i + 1}. ${q.text}${q.options.length ? ` (options: ${q.options.join(" / ")})` : ""}${q.default ? ` · default: ${q.default}` : ""} — ${answer ? `answered by @${answer.by}` : "waiting"}`,
      );
    });
    lines.push(whoCanAnswer(gate.answerers));
  } else {
    lines.push(
      `Last question (gate ${gate.id}) is **${gate.state}**${gate.answeredBy ? `, answered by @${gate.answeredBy}` : ""}${gate.closedReason ? ` (${gate.closedReason})` : ""}.`,
    );
  }
  return lines.join("\n");
}
