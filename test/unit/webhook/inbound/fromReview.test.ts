import { describe, expect, it } from "vitest";
import { type Json, RECEIVED, convert, review } from "../../../support/webhookExamples.js";

describe("fromReview: replies written in reviews", () => {
  it("maps a submitted review with a body to a created comment in a review, under an id no issue comment has", () => {
    const p = review();
    expect(convert("pull_request_review", p)).toEqual({
      kind: "comment",
      action: "created",
      deliveryId: "delivery-1",
      installationId: p.installation.id,
      repo: p.repository.full_name,
      issue: expect.objectContaining({ number: p.pull_request.number, isPullRequest: true }),
      sender: { login: p.sender.login, type: p.sender.type },
      receivedAt: RECEIVED,
      comment: {
        id: -2 * p.review.id,
        body: "Use SQLite.\n\nThe rest looks fine.",
        url: p.review.html_url,
        createdAt: p.review.submitted_at,
        author: { login: p.review.user.login, type: "User" },
        in: { kind: "review" },
      },
    });
  });

  it.each<[string, (p: Json) => void]>([
    ["without a body (an approval)", (p) => (p.review.body = null)],
    ["with only blanks", (p) => (p.review.body = "  \n")],
    ["whose user is null", (p) => (p.review.user = null)],
    ["by a bot", (p) => Object.assign(p.review.user, { login: "ci[bot]", type: "Bot" })],
    ["without an installation", (p) => delete p.installation],
    ["dismissed", (p) => (p.action = "dismissed")],
  ])("ignores a review %s", (_name, change) => {
    const p = review();
    change(p);
    expect(convert("pull_request_review", p)).toBeUndefined();
  });

  it("dates a review GitHub gives no submitted_at by its arrival", () => {
    const p = review();
    p.review.submitted_at = null;
    const event = convert("pull_request_review", p);
    expect(event?.kind === "comment" && event.comment.createdAt).toBe(new Date(RECEIVED).toISOString());
  });
});
