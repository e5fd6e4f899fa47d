import { describe, expect, it } from "vitest";
import { toInboundEvent } from "../../../src/webhook/toInboundEvent.js";
import { commentEvent, convert, lineComment, review } from "../../support/webhookExamples.js";

describe("toInboundEvent", () => {
  it("defaults receivedAt to now", () => {
    const before = Date.now();
    const event = toInboundEvent("issue_comment", commentEvent(), "d");
    expect(event!.receivedAt).toBeGreaterThanOrEqual(before);
    expect(event!.receivedAt).toBeLessThanOrEqual(Date.now());
  });

  it("ignores events of other names that carry the same fields", () => {
    expect(convert("pull_request_review", commentEvent())).toBeUndefined();
    expect(convert("issues", commentEvent())).toBeUndefined();
  });

  it("throws ProtocolError when the narrowed event breaks the job schema", () => {
    const p = commentEvent("created", (x) => (x.repository.full_name = "not a repo name"));
    expect(() => convert("issue_comment", p)).toThrow(/^Rejected issue_comment event: repo:/);
    const zero = commentEvent("created", (x) => (x.installation.id = 0));
    expect(() => convert("issue_comment", zero)).toThrow(/^Rejected issue_comment event: installationId:/);
  });

  it("keeps the ids of an issue comment, a review and a review comment apart when GitHub numbers them alike", () => {
    const submitted = review();
    submitted.review.id = 5;
    const onLine = lineComment();
    onLine.comment.id = 5;
    const ids = [
      convert(
        "issue_comment",
        commentEvent("created", (x) => (x.comment.id = 5)),
      ),
      convert("pull_request_review", submitted),
      convert("pull_request_review_comment", onLine),
    ].map((e) => (e?.kind === "comment" ? e.comment.id : undefined));
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).toBe(5);
  });
});
