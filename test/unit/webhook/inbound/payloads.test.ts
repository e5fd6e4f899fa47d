import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../../src/errors.js";
import type { HandledEventName } from "../../../../src/webhook/handledEvents.js";
import {
  INSTALLATION,
  closed,
  commentEvent,
  convert,
  example,
  labeled,
  lineComment,
  pullRequestEvent,
  synchronizeEvent,
} from "../../../support/webhookExamples.js";

describe("payloads: malformed", () => {
  it.each<[string, HandledEventName, () => unknown, RegExp]>([
    ["no repository", "issue_comment", () => commentEvent("created", (p) => delete p.repository), /repository/],
    ["an issue number as text", "issue_comment", () => commentEvent("created", (p) => (p.issue.number = "1")), /issue\.number/],
    ["a comment without user", "issue_comment", () => commentEvent("created", (p) => delete p.comment.user), /comment\.user/],
    ["an assignee without login", "issue_comment", () => commentEvent("created", (p) => (p.issue.assignees = [{}])), /issue\.assignees\.0\.login/],
    ["an installation id as text", "issues", () => Object.assign(closed(), { installation: { id: "1" } }), /installation\.id/],
    ["a label without name", "issues", () => Object.assign(labeled("agent"), { label: {} }), /label\.name/],
    ["not an object", "issues", () => "hello", /\(value\)/],
    ["null", "issues", () => null, /\(value\)/],
  ])("throws ProtocolError for %s, naming the field", (_name, name, payload, field) => {
    expect(() => convert(name, payload())).toThrow(ProtocolError);
    expect(() => convert(name, payload())).toThrow(new RegExp(`^Unexpected ${name} payload: .*${field.source}`));
  });

  it("rejects an edited payload without its changes' body text", () => {
    const p = example("issues", "edited");
    p.installation = INSTALLATION;
    p.changes = { body: {} };
    expect(() => convert("issues", p)).toThrow(/Unexpected issues payload/);
  });

  it("rejects a payload without the head commit, naming the field", () => {
    const p = synchronizeEvent();
    delete p.pull_request.head;
    expect(() => convert("pull_request", p)).toThrow(/^Unexpected pull_request payload: pull_request\.head/);
  });

  it("rejects a review comment without its file, naming the field", () => {
    const p = lineComment();
    delete p.comment.path;
    expect(() => convert("pull_request_review_comment", p)).toThrow(/^Unexpected pull_request_review_comment payload: comment\.path/);
  });
});

describe("payloads: what GitHub's schema allows to be null or absent", () => {
  it("maps issues.labeled without the issue's state (not required there): the state last seen stands", () => {
    const p = labeled("agent");
    delete p.issue.state;
    const event = convert("issues", p);
    expect(event).toMatchObject({ kind: "labeled", label: "agent" });
    expect(event?.issue).not.toHaveProperty("state");
  });

  it("ignores a created or edited comment whose user is null (a deleted account: nobody who may steer)", () => {
    expect(
      convert(
        "issue_comment",
        commentEvent("created", (x) => (x.comment.user = null)),
      ),
    ).toBeUndefined();
    expect(
      convert(
        "issue_comment",
        commentEvent("edited", (x) => (x.comment.user = null)),
      ),
    ).toBeUndefined();
  });

  it("keeps the deletion of a comment whose user is null, by the ghost user", () => {
    const event = convert(
      "issue_comment",
      commentEvent("deleted", (x) => (x.comment.user = null)),
    );
    expect(event).toMatchObject({ kind: "comment", action: "deleted", comment: { author: { login: "ghost", type: "User" } } });
  });

  it("reads a comment author without a type as a user, judged by login and permission", () => {
    const event = convert(
      "issue_comment",
      commentEvent("created", (x) => delete x.comment.user.type),
    );
    expect(event).toMatchObject({ kind: "comment", comment: { author: { login: "Codertocat", type: "User" } } });
  });

  it("skips null assignees, a null issue author and a null pull request author", () => {
    const p = labeled("agent");
    p.issue.assignees = [null, { login: "bob" }];
    p.issue.user = null;
    expect(convert("issues", p)?.issue).toMatchObject({ assignees: ["bob"] });
    expect(convert("issues", p)?.issue).not.toHaveProperty("author");
    const pr = pullRequestEvent("labeled");
    pr.pull_request.user = null;
    pr.pull_request.assignees = [null];
    expect(convert("pull_request", pr)?.issue).toMatchObject({ assignees: [] });
  });

  it("ignores a pull_request.edited without a sender (GitHub's schema does not require one): nobody to judge the edit by", () => {
    // The examples hold no pull_request.edited: another action's payload with the edit's fields.
    const p = pullRequestEvent("closed");
    p.action = "edited";
    p.changes = { body: { from: "The author's body" } };
    delete p.sender;
    expect(convert("pull_request", p)).toBeUndefined();
  });
});
