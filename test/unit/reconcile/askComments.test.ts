import { describe, expect, it } from "vitest";
import { renderAskComment, validateAsk } from "../../../src/protocol/ask.js";
import { renderMarker } from "../../../src/protocol/marker.js";
import { askComments, editedAt } from "../../../src/reconcile/askComments.js";
import type { ReplySnapshot } from "../../../src/reconcile/reviewReplies.js";

const APP = "escalation[bot]";
const ask = (round: number) => validateAsk({ v: 1, id: `ask${round}abcdef`, round, questions: [{ text: "Which database?", options: ["Postgres", "SQLite"] }] });
const comment = (id: number, login: string | null, body: string | undefined, over: Partial<ReplySnapshot> = {}): ReplySnapshot => ({
  id,
  body,
  html_url: `https://github.com/acme/widgets/issues/1#issuecomment-${id}`,
  created_at: "2025-01-01T12:00:00Z",
  user: login === null ? null : { login, type: login.endsWith("[bot]") ? "Bot" : "User" },
  ...over,
});
const isAgent = (login: string) => login === APP;

describe("askComments: the questions a rebuild restores gates from", () => {
  it("takes the agent's comments whose ask marker reads, in the order listed", () => {
    const comments = [comment(1, APP, renderAskComment(ask(0))), comment(2, "alice", "SQLite"), comment(3, APP, renderAskComment(ask(1)))];
    expect(askComments(comments, isAgent)).toEqual([
      { comment: comments[0], ask: ask(0) },
      { comment: comments[2], ask: ask(1) },
    ]);
  });

  it("a person's copy of an ask, a ghost's comment, an empty body and an app comment without a marker ask nothing", () => {
    const copied = renderAskComment(ask(0));
    expect(askComments([comment(1, "alice", copied), comment(2, null, copied), comment(3, APP, undefined), comment(4, APP, "Working on it")], isAgent)).toEqual(
      [],
    );
  });

  it("a malformed ask marker is no question (and does not stop the rebuild)", () => {
    const malformed = comment(1, APP, `Question\n\n${renderMarker("ask", { v: 1, questions: "not a list" })}`);
    const valid = comment(2, APP, renderAskComment(ask(1)));
    expect(askComments([malformed, valid], isAgent)).toEqual([{ comment: valid, ask: ask(1) }]);
  });
});

describe("editedAt: whether the app's ask was edited after it was asked", () => {
  it("a later second is an edit", () => {
    expect(editedAt({ created_at: "2025-01-01T12:00:00Z", updated_at: "2025-01-01T12:00:01Z" })).toBe(Date.parse("2025-01-01T12:00:01Z"));
  });

  it("the same second, or no update time, is none", () => {
    expect(editedAt({ created_at: "2025-01-01T12:00:00Z", updated_at: "2025-01-01T12:00:00Z" })).toBeUndefined();
    expect(editedAt({ created_at: "2025-01-01T12:00:00Z" })).toBeUndefined();
  });
});
