import { describe, expect, it } from "vitest";
import { convert, example, lineComment } from "../../../support/webhookExamples.js";

describe("fromReviewComment: replies on a line of the diff", () => {
  it("maps a review comment to a created comment on its file and line, under an id no issue comment or review has", () => {
    const p = lineComment();
    p.comment.line = 7;
    p.comment.side = "RIGHT";
    const event = convert("pull_request_review_comment", p);
    expect(event).toMatchObject({
      kind: "comment",
      action: "created",
      issue: { number: p.pull_request.number, isPullRequest: true },
      comment: {
        id: -(2 * p.comment.id + 1),
        body: p.comment.body,
        url: p.comment.html_url,
        createdAt: p.comment.created_at,
        in: { kind: "reviewComment", path: p.comment.path, line: 7, side: "RIGHT" },
      },
    });
  });

  it("keeps a review comment on an outdated line (line null) with its file only", () => {
    const p = lineComment();
    p.comment.line = null;
    const event = convert("pull_request_review_comment", p);
    expect(event?.kind === "comment" && event.comment.in).toMatchObject({ kind: "reviewComment", path: p.comment.path });
    expect(event?.kind === "comment" && event.comment.in).not.toHaveProperty("line");
  });

  it("ignores a review comment by a null user or a bot, and edited or deleted ones", () => {
    const nullUser = lineComment();
    nullUser.comment.user = null;
    expect(convert("pull_request_review_comment", nullUser)).toBeUndefined();
    const bot = lineComment();
    Object.assign(bot.comment.user, { login: "ci[bot]", type: "Bot" });
    expect(convert("pull_request_review_comment", bot)).toBeUndefined();
    expect(convert("pull_request_review_comment", example("pull_request_review_comment", "edited"))).toBeUndefined();
  });
});
