import { describe, expect, it } from "vitest";
import { renderMarker } from "../../../../src/protocol/marker.js";
import { INSTALLATION, RECEIVED, asBot, closed, commentEvent, convert, example, labeled } from "../../../support/webhookExamples.js";

describe("fromIssue: issue_comment", () => {
  it("maps a human's new comment to a comment event with the fields the loop uses", () => {
    const p = example("issue_comment", "created", (x) => x.installation !== undefined);
    expect(convert("issue_comment", p)).toEqual({
      kind: "comment",
      action: "created",
      deliveryId: "delivery-1",
      installationId: p.installation.id,
      repo: "Codertocat/Hello-World",
      issue: {
        number: p.issue.number,
        title: p.issue.title,
        body: p.issue.body,
        url: p.issue.html_url,
        author: p.issue.user.login,
        nodeId: p.issue.node_id,
        state: p.issue.state,
        isPullRequest: false,
        assignees: ["Codertocat"],
        labels: p.issue.labels.map((l: { name: string }) => l.name),
      },
      sender: { login: p.sender.login, type: p.sender.type },
      receivedAt: RECEIVED,
      comment: {
        id: p.comment.id,
        body: p.comment.body,
        url: p.comment.html_url,
        createdAt: p.comment.created_at,
        author: { login: p.comment.user.login, type: "User" },
      },
    });
  });

  it.each<[string]>([["edited"], ["deleted"]])("maps a human's %s comment to a comment event with that action", (action) => {
    const event = convert("issue_comment", commentEvent(action));
    expect(event).toMatchObject({ kind: "comment", action, installationId: INSTALLATION.id });
  });

  it("keeps no text of a deleted comment: only its id is needed, and the text may be why it was deleted", () => {
    const payload = commentEvent("deleted");
    expect(JSON.stringify(payload)).toContain(payload.comment.body);
    const event = convert("issue_comment", payload);
    expect(event).toMatchObject({ kind: "comment", action: "deleted", comment: { id: payload.comment.id, body: "" } });
  });

  it("marks a comment on a pull request", () => {
    const p = commentEvent("created", (x) => (x.issue.pull_request = { url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/1" }));
    expect(convert("issue_comment", p)?.issue.isPullRequest).toBe(true);
  });

  it("reads a null comment body and a null issue body as empty text", () => {
    const event = convert(
      "issue_comment",
      commentEvent("created", (x) => {
        x.comment.body = null;
        x.issue.body = null;
      }),
    );
    expect(event?.kind).toBe("comment");
    expect(event?.issue.body).toBe("");
    if (event?.kind === "comment") expect(event.comment.body).toBe("");
  });

  it.each<[string, unknown, string[]]>([
    ["no assignees", [], []],
    ["null assignees", null, []],
    ["12 assignees (kept: the first 10)", Array.from({ length: 12 }, (_, i) => ({ login: `user${i}` })), Array.from({ length: 10 }, (_, i) => `user${i}`)],
  ])("reads %s", (_name, assignees, expected) => {
    expect(
      convert(
        "issue_comment",
        commentEvent("created", (x) => (x.issue.assignees = assignees)),
      )?.issue.assignees,
    ).toEqual(expected);
  });

  it.each<[string, unknown, string[]]>([
    [
      "label objects",
      [
        { id: 1, name: "bug" },
        { id: 2, name: "agent" },
      ],
      ["bug", "agent"],
    ],
    ["label names as strings", ["bug", "agent"], ["bug", "agent"]],
    ["no labels", [], []],
    ["null labels", null, []],
    ["150 labels (kept: the first 100)", Array.from({ length: 150 }, (_, i) => ({ name: `l${i}` })), Array.from({ length: 100 }, (_, i) => `l${i}`)],
  ])("reads the issue's %s", (_name, labels, expected) => {
    expect(
      convert(
        "issue_comment",
        commentEvent("created", (x) => (x.issue.labels = labels)),
      )?.issue.labels,
    ).toEqual(expected);
  });

  it("ignores a delivery without an installation (not sent to an installed App)", () => {
    expect(
      convert(
        "issue_comment",
        commentEvent("created", (x) => delete x.installation),
      ),
    ).toBeUndefined();
    // The stock examples without an installation are ignored as they are.
    expect(
      convert(
        "issue_comment",
        example("issue_comment", "created", (x) => x.installation === undefined),
      ),
    ).toBeUndefined();
  });

  it.each<[string]>([["created"], ["edited"]])("ignores a bot's %s comment without a marker (bots never answer or command)", (action) => {
    expect(convert("issue_comment", commentEvent(action, asBot("/answer 1 yes")))).toBeUndefined();
  });

  it("keeps the deletion of a bot's comment even without a marker", () => {
    expect(convert("issue_comment", commentEvent("deleted", asBot("plain text")))).toMatchObject({ kind: "comment", action: "deleted" });
  });

  it.each<[string]>([["created"], ["edited"]])("keeps a bot's %s comment that carries a marker (an agent's ask)", (action) => {
    const body = `### 🙋 The agent needs your input\n\n${renderMarker("ask", { v: 1 })}`;
    const event = convert("issue_comment", commentEvent(action, asBot(body)));
    expect(event?.kind).toBe("comment");
    if (event?.kind === "comment") {
      expect(event.action).toBe(action);
      expect(event.comment.body).toBe(body);
      expect(event.comment.author).toEqual({ login: "some-ci[bot]", type: "Bot" });
    }
  });

  it("keeps a human's comment quoting a status marker (only bots' comments are dropped)", () => {
    const body = renderMarker("status", { v: 1, nextRound: 1, gates: [] });
    expect(
      convert(
        "issue_comment",
        commentEvent("created", (x) => (x.comment.body = body)),
      )?.kind,
    ).toBe("comment");
  });

  it("ignores other issue_comment actions", () => {
    expect(
      convert(
        "issue_comment",
        commentEvent("created", (x) => (x.action = "pinned")),
      ),
    ).toBeUndefined();
  });
});

describe("fromIssue: issues", () => {
  it.each<[string]>([["agent"], ["Agent"], ["bug"], ["needs: human review"]])(
    "maps labeled with %j to a labeled event carrying the label as written",
    (labelName) => {
      const p = labeled(labelName);
      expect(convert("issues", p)).toMatchObject({
        kind: "labeled",
        label: labelName,
        deliveryId: "delivery-1",
        installationId: INSTALLATION.id,
        repo: "Codertocat/Hello-World",
        issue: { number: p.issue.number, title: p.issue.title, state: "open", isPullRequest: false, assignees: ["Codertocat"] },
        sender: { login: "Codertocat", type: "User" },
      });
    },
  );

  it("ignores labeled without a label or without an installation", () => {
    const noLabel = labeled("agent");
    delete noLabel.label;
    expect(convert("issues", noLabel)).toBeUndefined();
    const noInstallation = labeled("agent");
    delete noInstallation.installation;
    expect(convert("issues", noInstallation)).toBeUndefined();
  });

  it("maps closed to a closed event", () => {
    const p = closed();
    const event = convert("issues", p);
    expect(event).toMatchObject({
      kind: "closed",
      installationId: p.installation.id,
      repo: "Codertocat/Hello-World",
      issue: { number: p.issue.number, state: "closed" },
    });
    expect(event).not.toHaveProperty("label");
    expect(event).not.toHaveProperty("comment");
  });

  it("maps edited to an edited event with the body before the edit and who edited", () => {
    const p = example("issues", "edited");
    p.installation = INSTALLATION;
    p.changes = { body: { from: "the author's words" } };
    p.sender = { ...p.sender, login: "escalation[bot]", type: "Bot" };
    expect(convert("issues", p)).toMatchObject({
      kind: "edited",
      previousBody: "the author's words",
      sender: { login: "escalation[bot]", type: "Bot" },
      issue: { number: p.issue.number, body: p.issue.body, author: p.issue.user.login, nodeId: p.issue.node_id },
    });
  });

  it("maps an edit of the title only to an edited event without a previous body", () => {
    const p = example("issues", "edited");
    p.installation = INSTALLATION;
    p.changes = { title: { from: "Old title" } };
    const event = convert("issues", p);
    expect(event).toMatchObject({ kind: "edited", previousTitle: "Old title" });
    expect(event).not.toHaveProperty("previousBody");
  });

  it.each<[string]>([["opened"], ["unlabeled"], ["assigned"], ["reopened"]])("ignores issues.%s", (action) => {
    const p = example("issues", action);
    p.installation = INSTALLATION;
    if (p.label) p.label.name = "agent"; // removing the label is no dispatch
    expect(convert("issues", p)).toBeUndefined();
  });

  it.each<[string, string]>([
    ["Bot", "escalation[bot]"],
    ["User", "renovate[bot]"],
  ])("drops a label added by a bot (%s %s): bots never dispatch", (type, login) => {
    const p = labeled("agent");
    p.sender.type = type;
    p.sender.login = login;
    expect(convert("issues", p)).toBeUndefined();
  });
});

describe("fromIssue: a label taken off", () => {
  const unlabeled = (sender: { login: string; type: string }) => {
    const p = labeled("awaiting-human");
    p.action = "unlabeled";
    p.sender = { ...p.sender, ...sender };
    return p;
  };

  it("maps one taken off by a bot (perhaps the agent, acting as the App's bot) to an unlabeled event", () => {
    expect(convert("issues", unlabeled({ login: "escalation[bot]", type: "Bot" }))).toMatchObject({
      kind: "unlabeled",
      label: "awaiting-human",
      sender: { login: "escalation[bot]", type: "Bot" },
    });
  });

  it("drops one taken off by a person: their choice stands", () => {
    expect(convert("issues", unlabeled({ login: "maintainer", type: "User" }))).toBeUndefined();
  });
});
