import { describe, expect, it } from "vitest";
import { combined, describeOutcome, recordsChange, type Outcome } from "../../../src/gates/outcome.js";

describe("describeOutcome: the words of the log line and the job's record", () => {
  it.each<[Outcome, string]>([
    [{ kind: "ignored", reason: "other label" }, "ignored: other label"],
    [
      { kind: "ignored", reason: "changed by another", verb: "deleted", by: "mallory", author: "alice" },
      "ignored: deleted by @mallory, not by its author @alice",
    ],
    [{ kind: "gateOpened", gateId: "1" }, "gate opened"],
    [{ kind: "gateAlreadyOpen", gateId: "1" }, "gate already open"],
    [{ kind: "gateSuperseded", why: "new commits" }, "gate superseded: new commits"],
    [{ kind: "gateCancelled", why: "command" }, "gate cancelled"],
    [{ kind: "gateCancelled", why: "question deleted" }, "gate cancelled: question deleted"],
    [{ kind: "issueClosed", gate: "none open" }, "closed: nothing open"],
    [{ kind: "issueClosed", gate: "already settled" }, "closed: gate already settled"],
    [{ kind: "answerWithdrawn", how: "deleted early" }, "answer withdrawn: its comment was deleted"],
    [{ kind: "answerWithdrawn", how: "deleted before the resume" }, "answer withdrawn before the resume"],
    [{ kind: "answerRevised", how: "replaced" }, "answer replaced"],
    [{ kind: "discussion", why: "/discuss" }, "discussion: /discuss"],
    [{ kind: "voteRecorded", repeated: true }, "vote already counted"],
    [{ kind: "approvalRecorded", decision: "denied" }, "approval recorded: denied"],
    [{ kind: "noteWithdrawn", early: true }, "note withdrawn: its comment was deleted"],
    [{ kind: "refusedWhileOpen", command: "dispatch" }, "dispatch refused: gate open"],
    [{ kind: "unknownCommand", raw: "frobnicate" }, "unknown command /frobnicate"],
    [{ kind: "reopenDeclined", why: "no answer" }, "reopen: no answer"],
    [{ kind: "bodyEdited", editor: "alice", byAuthor: true }, "recorded: the body edited by its author"],
    [{ kind: "bodyEdited", editor: "mallory", byAuthor: false }, "kept: the body edited by @mallory, not by its author"],
    [{ kind: "titleEdited", editor: "escalation[bot]", byBot: true }, "kept: the title changed by @escalation[bot], a bot"],
    [{ kind: "wordsKept", what: "note", verb: "edited", by: "mallory" }, "kept: note edited by @mallory, not by its author"],
    [{ kind: "labelPutBack", gateId: "1", while: "the answered round runs" }, "label put back: the answered round runs"],
    [{ kind: "rebuilt", changes: 2 }, "rebuilt from GitHub: 2 change(s)"],
    [
      {
        kind: "several",
        outcomes: [
          { kind: "answerWithdrawn", how: "edited" },
          { kind: "repliesReadAgain", changes: 1 },
        ],
      },
      "answer withdrawn by an edit; replies read again: 1 change(s)",
    ],
  ])("%j reads %j", (outcome, words) => {
    expect(describeOutcome(outcome)).toBe(words);
  });
});

describe("combined: an event that ran several transitions", () => {
  const title: Outcome = { kind: "titleEdited", editor: "alice", byBot: false };
  const body: Outcome = { kind: "bodyEdited", editor: "alice", byAuthor: true };
  const unchanged: Outcome = { kind: "ignored", reason: "the body did not change" };

  it("leaves the ignored ones out, and is the one that is left alone", () => {
    expect(combined([title, unchanged], unchanged)).toEqual(title);
    expect(combined([undefined, body], unchanged)).toEqual(body);
    expect(combined([title, body], unchanged)).toEqual({ kind: "several", outcomes: [title, body] });
  });

  it("is the fallback when every one was ignored", () => {
    expect(combined([undefined, unchanged], unchanged)).toEqual(unchanged);
    expect(combined([], { kind: "ignored", reason: "not an edit" })).toEqual({ kind: "ignored", reason: "not an edit" });
  });
});

describe("recordsChange: what reconciliation reports of a replayed reply", () => {
  it.each<[Outcome, boolean]>([
    [{ kind: "answerRecorded" }, true],
    [{ kind: "answerPartial" }, true],
    [{ kind: "approvalRecorded", decision: "approved" }, true],
    [{ kind: "voteRecorded", repeated: false }, true],
    [{ kind: "voteRecorded", repeated: true }, false],
    [{ kind: "noteRecorded" }, true],
    [{ kind: "supersededAnswerRecorded" }, true],
    [{ kind: "gateCancelled", why: "command" }, true],
    [{ kind: "issueClosed", gate: "cancelled" }, true],
    [{ kind: "issueClosed", gate: "already settled" }, false],
    [{ kind: "dispatched" }, true],
    [{ kind: "retryQueued" }, true],
    [{ kind: "alreadyAnswered" }, false],
    [{ kind: "answerAlreadyResumed" }, false],
    [{ kind: "refusedWhileOpen", command: "dispatch" }, false],
    [{ kind: "discussion", why: "a question" }, false],
    // Its words hold "recorded", but nothing was: a regex over the words counted it.
    [{ kind: "unknownCommand", raw: "recorded" }, false],
    [{ kind: "ignored", reason: "no open gate" }, false],
    [{ kind: "several", outcomes: [{ kind: "noteWithdrawn", early: false }, { kind: "answerRecorded" }] }, true],
  ])("%j: %s", (outcome, changed) => {
    expect(recordsChange(outcome)).toBe(changed);
  });
});
