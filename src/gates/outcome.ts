/**
 * What a transition of the loop did with an event or a due job, as a value: callers branch on
 * `kind`, never on wording. `describeOutcome` renders it for the log line and the job's record in
 * the queue, in the words operators have always seen.
 */

/** Why an event changed nothing (rendered "ignored: <reason>"). */
export type IgnoredReason =
  | "other label"
  | "sender may not dispatch"
  | "agent review"
  | "agent comment without a valid ask"
  | "author may not steer"
  | "a command in a review"
  | "no open gate"
  | "not an edit"
  | "the body did not change"
  | "edit of a comment that answered nothing"
  | "an edited vote is not read again"
  | "deleted comment was no question, answer or note"
  | "deleted comment was no open question"
  | "gate already settled"
  | "the asker's own vote never counts"
  | "no question waits and no round that took an answer runs"
  | "the app took it off"
  | "the label is on again"
  | "/answer without an open gate"
  | "/defaults without an open gate"
  | "edit of a question that is not open"
  | "not a pull request"
  | "no open question"
  | "the commits came before the question";

/** What a human's comment decided that another account's edit or deletion must not change. */
export type Decided = "answer" | "vote" | "note";

export type Outcome =
  | { kind: "ignored"; reason: IgnoredReason }
  /** Another account edited or deleted a comment that decided nothing. */
  | { kind: "ignored"; reason: "changed by another"; verb: "edited" | "deleted"; by: string; author: string }
  /** Several transitions ran for one event (an issue edit, a deleted reply); none of them is "ignored". */
  | { kind: "several"; outcomes: Outcome[] }
  // Questions.
  | { kind: "gateOpened"; gateId: string }
  | { kind: "gateAlreadyOpen"; gateId: string }
  | { kind: "gateSuperseded"; why: "question edited" | "new commits" }
  | { kind: "gateCancelled"; why: "command" | "question deleted" }
  | { kind: "gateVanished" }
  | { kind: "gateNoLongerOpen" }
  | { kind: "issueClosed"; gate: "none open" | "cancelled" | "already settled" }
  // Answers and votes.
  | { kind: "answerRecorded" }
  | { kind: "answerPartial" }
  | { kind: "alreadyAnswered" }
  | { kind: "answerAlreadyResumed" }
  /** "deleted early": deleted before its creation was processed, so it was withdrawn as soon as it was recorded. */
  | { kind: "answerWithdrawn"; how: "deleted early" | "deleted" | "deleted before the resume" | "edited" }
  | { kind: "answerRevised"; how: "replaced" | "for later rounds" }
  | { kind: "supersededAnswerRecorded" }
  | { kind: "discussion"; why: string }
  | { kind: "notAnAnswer"; why: string }
  | { kind: "noAnswer" }
  | { kind: "refused"; why: "not a code owner" }
  | { kind: "noVote" }
  | { kind: "voteRecorded"; repeated: boolean }
  | { kind: "lateVote" }
  | { kind: "approvalRecorded"; decision: "approved" | "denied" }
  // Notes and commands.
  | { kind: "noteRecorded" }
  | { kind: "noteEmpty" }
  | { kind: "noteRevised" }
  /** early: deleted before its creation was processed, so withdrawn as soon as it was recorded. */
  | { kind: "noteWithdrawn"; early: boolean }
  | { kind: "dispatched" }
  | { kind: "retryQueued" }
  /** A command that needs an open question while one is open (`/agent`, `/retry`). */
  | { kind: "refusedWhileOpen"; command: "dispatch" | "retry" }
  | { kind: "noDefaults" }
  | { kind: "stopRequested" }
  | { kind: "nothingToCancel"; why: "nothing open" | "already settled" }
  | { kind: "replied"; with: "status" | "help" }
  | { kind: "unknownCommand"; raw: string }
  | { kind: "reopenDeclined"; why: "nothing to correct" | "refused on an approval" | "no answer" | "gate vanished" }
  // Edits of what people wrote, and the app's label.
  | { kind: "bodyEdited"; editor: string; byAuthor: boolean }
  | { kind: "titleEdited"; editor: string; byBot: boolean }
  | { kind: "wordsKept"; what: Decided; verb: "edited" | "deleted"; by: string }
  | { kind: "labelPutBack"; gateId: string; while: "a question waits" | "the answered round runs" }
  // Rebuilds from GitHub.
  | { kind: "repliesReadAgain"; changes: number }
  | { kind: "rebuilt"; changes: number }
  // Timeouts and the reminder ladder.
  | { kind: "nothingDue" }
  | { kind: "reminded" }
  | { kind: "alreadyReminded" }
  | { kind: "overdue" };

export type OutcomeKind = Outcome["kind"];

/** Outcomes of one kind, e.g. `OutcomeOf<"gateOpened">`. */
export type OutcomeOf<K extends OutcomeKind> = Extract<Outcome, { kind: K }>;

export const isIgnored = (outcome: Outcome): outcome is OutcomeOf<"ignored"> => outcome.kind === "ignored";

/** Several outcomes as one, the ignored ones left out; `otherwise` when all of them were ignored. */
export function combined(outcomes: readonly (Outcome | undefined)[], otherwise: Outcome): Outcome {
  const done = outcomes.filter((o): o is Outcome => o !== undefined && !isIgnored(o));
  if (done.length === 0) return otherwise;
  return done.length === 1 ? done[0]! : { kind: "several", outcomes: done };
}

/**
 * Whether a replayed reply changed what Redis holds (an answer, vote or note recorded, a gate
 * cancelled, a round queued): reconciliation reports those as its changes.
 */
export function recordsChange(outcome: Outcome): boolean {
  switch (outcome.kind) {
    case "answerRecorded":
    case "answerPartial":
    case "approvalRecorded":
    case "supersededAnswerRecorded":
    case "noteRecorded":
    case "gateCancelled":
    case "dispatched":
    case "retryQueued":
      return true;
    case "voteRecorded":
      return !outcome.repeated;
    case "issueClosed":
      return outcome.gate === "cancelled";
    case "several":
      return outcome.outcomes.some(recordsChange);
    default:
      return false;
  }
}

const WITHDRAWN: Record<OutcomeOf<"answerWithdrawn">["how"], string> = {
  "deleted early": "answer withdrawn: its comment was deleted",
  deleted: "answer withdrawn",
  "deleted before the resume": "answer withdrawn before the resume",
  edited: "answer withdrawn by an edit",
};

/** The outcome in words, for the log line and the job's record. */
export function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case "ignored":
      return outcome.reason === "changed by another"
        ? `ignored: ${outcome.verb} by @${outcome.by}, not by its author @${outcome.author}`
        : `ignored: ${outcome.reason}`;
    case "several":
      return outcome.outcomes.map(describeOutcome).join("; ");
    case "gateOpened":
      return "gate opened";
    case "gateAlreadyOpen":
      return "gate already open";
    case "gateSuperseded":
      return `gate superseded: ${outcome.why}`;
    case "gateCancelled":
      return outcome.why === "command" ? "gate cancelled" : "gate cancelled: question deleted";
    case "gateVanished":
      return "gate vanished";
    case "gateNoLongerOpen":
      return "gate no longer open";
    case "issueClosed":
      return outcome.gate === "none open" ? "closed: nothing open" : `closed: gate ${outcome.gate}`;
    case "answerRecorded":
      return "answer recorded";
    case "answerPartial":
      return "answer partial";
    case "alreadyAnswered":
      return "already answered";
    case "answerAlreadyResumed":
      return "answer already resumed";
    case "answerWithdrawn":
      return WITHDRAWN[outcome.how];
    case "answerRevised":
      return outcome.how === "replaced" ? "answer replaced" : "answer revised for later rounds";
    case "supersededAnswerRecorded":
      return "answer to a superseded question recorded, not resumed";
    case "discussion":
      return `discussion: ${outcome.why}`;
    case "notAnAnswer":
      return `not an answer: ${outcome.why}`;
    case "noAnswer":
      return "reply had no answer";
    case "refused":
      return `refused: ${outcome.why}`;
    case "noVote":
      return "reply cast no vote";
    case "voteRecorded":
      return outcome.repeated ? "vote already counted" : "vote recorded";
    case "lateVote":
      return "vote after the gate was resolved";
    case "approvalRecorded":
      return `approval recorded: ${outcome.decision}`;
    case "noteRecorded":
      return "note recorded";
    case "noteEmpty":
      return "note: empty";
    case "noteRevised":
      return "note revised";
    case "noteWithdrawn":
      return outcome.early ? "note withdrawn: its comment was deleted" : "note withdrawn";
    case "dispatched":
      return "dispatched";
    case "retryQueued":
      return "retry queued";
    case "refusedWhileOpen":
      return `${outcome.command} refused: gate open`;
    case "noDefaults":
      return "defaults: none";
    case "stopRequested":
      return "stop requested";
    case "nothingToCancel":
      return outcome.why === "nothing open" ? "cancel: nothing open" : "cancel: already settled";
    case "replied":
      return `${outcome.with} replied`;
    case "unknownCommand":
      return `unknown command /${outcome.raw}`;
    case "reopenDeclined":
      return `reopen: ${outcome.why}`;
    case "bodyEdited":
      return outcome.byAuthor ? "recorded: the body edited by its author" : `kept: the body edited by @${outcome.editor}, not by its author`;
    case "titleEdited":
      return outcome.byBot ? `kept: the title changed by @${outcome.editor}, a bot` : "recorded: the title changed by a person";
    case "wordsKept":
      return `kept: ${outcome.what} ${outcome.verb} by @${outcome.by}, not by its author`;
    case "labelPutBack":
      return `label put back: ${outcome.while}`;
    case "repliesReadAgain":
      return `replies read again: ${outcome.changes} change(s)`;
    case "rebuilt":
      return `rebuilt from GitHub: ${outcome.changes} change(s)`;
    case "nothingDue":
      return "nothing to do";
    case "reminded":
      return "reminded";
    case "alreadyReminded":
      return "already reminded";
    case "overdue":
      return "overdue";
  }
}
