import { describe, expect, it } from "vitest";
import { convert, pullRequestEvent, synchronizeEvent } from "../../../support/webhookExamples.js";

describe("fromPullRequest: pull_request.synchronize", () => {
  it("maps GitHub's example to a pushed event on the pull request's issue number, with the new head and when it landed", () => {
    const p = synchronizeEvent();
    const event = convert("pull_request", p);
    expect(event).toMatchObject({
      kind: "pushed",
      repo: p.repository.full_name,
      installationId: p.installation.id,
      issue: { number: p.pull_request.number, isPullRequest: true, title: p.pull_request.title, url: p.pull_request.html_url },
      headSha: p.pull_request.head.sha,
      pushedAt: Date.parse(p.pull_request.updated_at),
      sender: { login: p.sender.login },
    });
  });

  it("ignores a delivery that is not to an installation", () => {
    const p = synchronizeEvent();
    delete p.installation;
    expect(convert("pull_request", p)).toBeUndefined();
  });
});

describe("fromPullRequest: labels, closes and reopens, as their issues.* counterparts", () => {
  it("maps pull_request.labeled to the labeled event issues.labeled gives, on the pull request's number", () => {
    const p = pullRequestEvent("labeled");
    p.label.name = "agent";
    expect(convert("pull_request", p)).toMatchObject({
      kind: "labeled",
      label: "agent",
      deliveryId: "delivery-1",
      installationId: p.installation.id,
      repo: p.repository.full_name,
      issue: { number: p.pull_request.number, title: p.pull_request.title, url: p.pull_request.html_url, state: "open", isPullRequest: true },
      sender: { login: p.sender.login, type: p.sender.type },
    });
  });

  it("drops a label a bot put on a pull request, as on an issue", () => {
    const p = pullRequestEvent("labeled");
    p.sender.login = "escalation[bot]";
    p.sender.type = "Bot";
    expect(convert("pull_request", p)).toBeUndefined();
  });

  it("maps pull_request.closed to a closed event", () => {
    const p = pullRequestEvent("closed");
    expect(convert("pull_request", p)).toMatchObject({ kind: "closed", issue: { number: p.pull_request.number, isPullRequest: true, state: "closed" } });
  });

  it("maps pull_request.edited to an edited event with the body and title before, as issues.edited (its body is the task's description)", () => {
    // The examples hold no pull_request.edited: another action's payload with the edit's fields.
    const p = pullRequestEvent("closed");
    p.action = "edited";
    p.changes = { body: { from: "The author's body" }, title: { from: "The author's title" } };
    expect(convert("pull_request", p)).toMatchObject({
      kind: "edited",
      previousBody: "The author's body",
      previousTitle: "The author's title",
      issue: { isPullRequest: true },
    });
  });

  it.each<[string]>([["unlabeled"], ["reopened"], ["opened"], ["assigned"]])("ignores pull_request.%s, as issues.* of the same action", (action) => {
    expect(convert("pull_request", pullRequestEvent(action))).toBeUndefined();
  });
});
