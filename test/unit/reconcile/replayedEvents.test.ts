import { describe, expect, it } from "vitest";
import { InboundEventSchema } from "../../../src/payloads.js";
import type { IssueSnapshot } from "../../../src/reconcile/issueSnapshot.js";
import { issueClosed, replayBase, replyCreated, replyDeleted } from "../../../src/reconcile/replayedEvents.js";

const issue: IssueSnapshot = {
  number: 7,
  title: "Cache layer",
  body: "Add a cache",
  html_url: "https://github.com/acme/widgets/issues/7",
  state: "open",
  user: { login: "carol" },
  assignees: Array.from({ length: 12 }, (_, i) => ({ login: `dev${i}` })),
  labels: ["awaiting-human", { name: "bug" }, { name: "" }, {}],
};

describe("replayBase: the issue as the webhook's events carry it", () => {
  it("maps the REST snapshot within the payload schema's bounds", () => {
    const base = replayBase(3, "acme/widgets", issue);
    expect(base).toMatchObject({
      deliveryId: "reconcile",
      installationId: 3,
      repo: "acme/widgets",
      issue: {
        number: 7,
        title: "Cache layer",
        body: "Add a cache",
        url: issue.html_url,
        state: "open",
        author: "carol",
        isPullRequest: false,
        labels: ["awaiting-human", "bug"],
      },
    });
    expect(base.issue.assignees).toEqual(Array.from({ length: 10 }, (_, i) => `dev${i}`));
  });

  it("a pull request, a missing body and a ghost author", () => {
    const base = replayBase(3, "acme/widgets", { ...issue, body: null, user: null, pull_request: {}, assignees: null, labels: undefined });
    expect(base.issue).toMatchObject({ body: "", isPullRequest: true, assignees: [], labels: [] });
    expect(base.issue).not.toHaveProperty("author");
  });
});

describe("the replayed events pass the webhook's payload schema", () => {
  const base = replayBase(3, "acme/widgets", issue);

  it("a reply created, with its place on a pull request", () => {
    const event = replyCreated(base, {
      id: -41,
      body: "SQLite",
      html_url: "https://github.com/acme/widgets/pull/7#pullrequestreview-41",
      created_at: "2025-01-01T12:00:00Z",
      user: { login: "alice", type: "User" },
      in: { kind: "review" },
    });
    expect(InboundEventSchema.parse(event)).toEqual(event);
    expect(event).toMatchObject({ kind: "comment", action: "created", deliveryId: "reconcile--41", sender: { login: "alice", type: "User" } });
    expect(event.comment).toEqual({
      id: -41,
      body: "SQLite",
      url: expect.any(String),
      createdAt: "2025-01-01T12:00:00Z",
      author: { login: "alice", type: "User" },
      in: { kind: "review" },
    });
  });

  it("a reply of a deleted account: a ghost, as GitHub shows it", () => {
    const event = replyCreated(base, { id: 9, html_url: "https://x/9", created_at: "2025-01-01T12:00:00Z", user: null });
    expect(event.sender).toEqual({ login: "ghost", type: "User" });
    expect(event.comment).toMatchObject({ body: "", author: { login: "ghost", type: "User" } });
    expect(event.comment).not.toHaveProperty("in");
  });

  it("a reply gone from GitHub, deleted by its author", () => {
    const event = replyDeleted(base, { id: 12, by: "bob", url: `${issue.html_url}#issuecomment-12` });
    expect(InboundEventSchema.parse(event)).toEqual(event);
    expect(event).toMatchObject({
      action: "deleted",
      deliveryId: "reconcile-deleted-12",
      sender: { login: "bob", type: "User" },
      comment: { id: 12, body: "" },
    });
  });

  it("the issue closed", () => {
    const event = issueClosed(base);
    expect(InboundEventSchema.parse(event)).toEqual(event);
    expect(event).toMatchObject({ kind: "closed", deliveryId: "reconcile-closed-7", sender: { login: "reconcile", type: "Bot" } });
  });
});
