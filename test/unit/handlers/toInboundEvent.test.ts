import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../src/errors.js";
import type { HandledEventName } from "../../../src/handlers/handledEvents.js";
import { toInboundEvent } from "../../../src/handlers/toInboundEvent.js";
import { renderMarker, renderSignedMarker } from "../../../src/protocol/marker.js";
import { testSeal } from "../../support/seal.js";

// Real payloads contributed to octokit/webhooks. Read as data (the file is 4 MB; typing it as a JSON
// module would make tsc slow) and narrowed to what these tests touch.
type Json = Record<string, any>;
interface Definition {
  name: string;
  examples: Json[];
}
const require = createRequire(import.meta.url);
const definitions = JSON.parse(readFileSync(require.resolve("@octokit/webhooks-examples/api.github.com/index.json"), "utf8")) as Definition[];

/** A deep copy of the first example of `name` whose action is `action` (and that passes `where`). */
function example(name: string, action: string, where: (p: Json) => boolean = () => true): Json {
  const found = definitions.find((d) => d.name === name)?.examples.find((p) => p.action === action && where(p));
  if (!found) throw new Error(`no ${name}.${action} example in @octokit/webhooks-examples`);
  return structuredClone(found);
}

const INSTALLATION = { id: 4242, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==" };
const RECEIVED = 1_700_000_000_000;
const convert = (name: HandledEventName, payload: unknown) => toInboundEvent(name, payload, "delivery-1", RECEIVED);

/** issue_comment.<action>, delivered to an installation. */
const commentEvent = (action = "created", over: (p: Json) => void = () => {}) => {
  const p = example("issue_comment", action);
  p.installation ??= { ...INSTALLATION };
  over(p);
  return p;
};
const asBot = (body: string) => (p: Json) => {
  p.comment.user.type = "Bot";
  p.comment.user.login = "some-ci[bot]";
  p.comment.body = body;
};
const labeled = (name: string) => {
  const p = example("issues", "labeled");
  p.installation = { ...INSTALLATION };
  p.label.name = name;
  return p;
};
const closed = () => {
  // The examples have no issues.closed; a reopened delivery differs only in action and state.
  const p = example("issues", "reopened");
  p.action = "closed";
  p.issue.state = "closed";
  return p;
};

describe("toInboundEvent: issue_comment", () => {
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

  it("defaults receivedAt to now", () => {
    const before = Date.now();
    const event = toInboundEvent("issue_comment", commentEvent(), "d");
    expect(event!.receivedAt).toBeGreaterThanOrEqual(before);
    expect(event!.receivedAt).toBeLessThanOrEqual(Date.now());
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
    expect(convert("issue_comment", commentEvent("created", (x) => (x.issue.assignees = assignees)))?.issue.assignees).toEqual(expected);
  });

  it.each<[string, unknown, string[]]>([
    ["label objects", [{ id: 1, name: "bug" }, { id: 2, name: "agent" }], ["bug", "agent"]],
    ["label names as strings", ["bug", "agent"], ["bug", "agent"]],
    ["no labels", [], []],
    ["null labels", null, []],
    ["150 labels (kept: the first 100)", Array.from({ length: 150 }, (_, i) => ({ name: `l${i}` })), Array.from({ length: 100 }, (_, i) => `l${i}`)],
  ])("reads the issue's %s", (_name, labels, expected) => {
    expect(convert("issue_comment", commentEvent("created", (x) => (x.issue.labels = labels)))?.issue.labels).toEqual(expected);
  });

  it("ignores a delivery without an installation (not sent to an installed App)", () => {
    expect(convert("issue_comment", commentEvent("created", (x) => delete x.installation))).toBeUndefined();
    // The stock examples without an installation are ignored as they are.
    expect(convert("issue_comment", example("issue_comment", "created", (x) => x.installation === undefined))).toBeUndefined();
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

  it("keeps a bot's comment with a broken marker too (the loop reports it)", () => {
    expect(convert("issue_comment", commentEvent("created", asBot("<!-- escalation:ask:v1 !!! -->")))?.kind).toBe("comment");
  });

  it.each<[string]>([["created"], ["edited"]])("drops the %s status comment of a bot (the loop ignores it on every transition)", (action) => {
    const body = `### Escalation status\n\n- round 0: agent started\n\n${renderMarker("status", { v: 1, nextRound: 1, gates: [] })}`;
    expect(convert("issue_comment", commentEvent(action, asBot(body)))).toBeUndefined();
  });

  it("keeps a bot's comment that carries an ask marker beside a status marker", () => {
    const body = `${renderMarker("status", { v: 1, nextRound: 1, gates: [] })}\n${renderMarker("ask", { v: 1 })}`;
    expect(convert("issue_comment", commentEvent("created", asBot(body)))?.kind).toBe("comment");
  });

  it("keeps a human's comment quoting a status marker (only bots' comments are dropped)", () => {
    const body = renderMarker("status", { v: 1, nextRound: 1, gates: [] });
    expect(convert("issue_comment", commentEvent("created", (x) => (x.comment.body = body)))?.kind).toBe("comment");
  });

  it("ignores other issue_comment actions", () => {
    expect(convert("issue_comment", commentEvent("created", (x) => (x.action = "pinned")))).toBeUndefined();
  });
});

describe("toInboundEvent: issues", () => {
  // Which label dispatches is per-repository configuration; every labeled event goes to the worker.
  it.each<[string]>([["agent"], ["Agent"], ["bug"], ["needs: human review"]])("maps labeled with %j to a labeled event carrying the label as written", (labelName) => {
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
  });

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
    expect(event).toMatchObject({ kind: "closed", installationId: p.installation.id, repo: "Codertocat/Hello-World", issue: { number: p.issue.number, state: "closed" } });
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

  it("rejects an edited payload without its changes' body text", () => {
    const p = example("issues", "edited");
    p.installation = INSTALLATION;
    p.changes = { body: {} };
    expect(() => convert("issues", p)).toThrow(/Unexpected issues payload/);
  });

  it.each<[string]>([["opened"], ["unlabeled"], ["assigned"], ["reopened"]])("ignores issues.%s", (action) => {
    const p = example("issues", action);
    p.installation = INSTALLATION;
    if (p.label) p.label.name = "agent"; // removing the label is no dispatch
    expect(convert("issues", p)).toBeUndefined();
  });

  it("ignores events of other names that carry the same fields", () => {
    expect(convert("pull_request_review", commentEvent())).toBeUndefined();
    expect(convert("issues", commentEvent())).toBeUndefined();
  });

  it.each<[string, string]>([["Bot", "escalation[bot]"], ["User", "renovate[bot]"]])("drops a label added by a bot (%s %s): bots never dispatch", (type, login) => {
    const p = labeled("agent");
    p.sender.type = type;
    p.sender.login = login;
    expect(convert("issues", p)).toBeUndefined();
  });
});

describe("toInboundEvent: malformed payloads", () => {
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

  it("throws ProtocolError when the narrowed event breaks the job schema", () => {
    const p = commentEvent("created", (x) => (x.repository.full_name = "not a repo name"));
    expect(() => convert("issue_comment", p)).toThrow(/^Rejected issue_comment event: repo:/);
    const zero = commentEvent("created", (x) => (x.installation.id = 0));
    expect(() => convert("issue_comment", zero)).toThrow(/^Rejected issue_comment event: installationId:/);
  });
});

describe("toInboundEvent: pull_request.synchronize", () => {
  const synchronize = () => {
    const p = example("pull_request", "synchronize");
    p.installation ??= INSTALLATION;
    return p;
  };

  it("maps GitHub's example to a pushed event on the pull request's issue number, with the new head and when it landed", () => {
    const p = synchronize();
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

  it("rejects a payload without the head commit, naming the field", () => {
    const p = synchronize();
    delete p.pull_request.head;
    expect(() => convert("pull_request", p)).toThrow(/^Unexpected pull_request payload: pull_request\.head/);
  });

  it("ignores a delivery that is not to an installation", () => {
    const p = synchronize();
    delete p.installation;
    expect(convert("pull_request", p)).toBeUndefined();
  });

  it("drops the app's own reminders like its status comment: nothing in them to act on", () => {
    const p = commentEvent("created", asBot(`⏰ Reminder\n\n${renderMarker("ladder", { v: 1, gate: "1", step: 0 })}`));
    expect(convert("issue_comment", p)).toBeUndefined();
  });
});

describe("toInboundEvent: a label taken off", () => {
  const unlabeled = (sender: { login: string; type: string }) => {
    const p = labeled("awaiting-human");
    p.action = "unlabeled";
    p.sender = { ...p.sender, ...sender };
    return p;
  };

  it("maps one taken off by a bot (perhaps the agent, acting as the App's bot) to an unlabeled event", () => {
    expect(convert("issues", unlabeled({ login: "escalation[bot]", type: "Bot" }))).toMatchObject({ kind: "unlabeled", label: "awaiting-human", sender: { login: "escalation[bot]", type: "Bot" } });
  });

  it("drops one taken off by a person: their choice stands", () => {
    expect(convert("issues", unlabeled({ login: "maintainer", type: "User" }))).toBeUndefined();
  });

  it("drops a bot's comment carrying only a signed notice of the app, like its status comment", () => {
    const notice = `⚠️ A comment under the app's name …\n\n${renderSignedMarker("notice", { v: 1, ignored: 5 }, testSeal())}`;
    expect(convert("issue_comment", commentEvent("created", asBot(notice)))).toBeUndefined();
  });
});

describe("toInboundEvent: what GitHub's schema allows to be null or absent", () => {
  it("maps issues.labeled without the issue's state (not required there): the state last seen stands", () => {
    const p = labeled("agent");
    delete p.issue.state;
    const event = convert("issues", p);
    expect(event).toMatchObject({ kind: "labeled", label: "agent" });
    expect(event?.issue).not.toHaveProperty("state");
  });

  it("ignores a created or edited comment whose user is null (a deleted account: nobody who may steer)", () => {
    expect(convert("issue_comment", commentEvent("created", (x) => (x.comment.user = null)))).toBeUndefined();
    expect(convert("issue_comment", commentEvent("edited", (x) => (x.comment.user = null)))).toBeUndefined();
  });

  it("keeps the deletion of a comment whose user is null, by the ghost user", () => {
    const event = convert("issue_comment", commentEvent("deleted", (x) => (x.comment.user = null)));
    expect(event).toMatchObject({ kind: "comment", action: "deleted", comment: { author: { login: "ghost", type: "User" } } });
  });

  it("reads a comment author without a type as a user, judged by login and permission", () => {
    const event = convert("issue_comment", commentEvent("created", (x) => delete x.comment.user.type));
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

/** pull_request.<action> from GitHub's examples, delivered to an installation. */
function pullRequestEvent(action: string): Json {
  return example("pull_request", action, (x) => x.installation !== undefined);
}

describe("toInboundEvent: pull_request labels, closes and reopens, as their issues.* counterparts", () => {
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
    expect(convert("pull_request", p)).toMatchObject({ kind: "edited", previousBody: "The author's body", previousTitle: "The author's title", issue: { isPullRequest: true } });
  });

  it.each<[string]>([["unlabeled"], ["reopened"], ["opened"], ["assigned"]])("ignores pull_request.%s, as issues.* of the same action", (action) => {
    expect(convert("pull_request", pullRequestEvent(action))).toBeUndefined();
  });
});

describe("toInboundEvent: replies written in reviews", () => {
  const review = (body: string | null = "Use SQLite.\n\nThe rest looks fine.") => {
    const p = example("pull_request_review", "submitted", (x) => x.installation !== undefined);
    p.review.body = body;
    return p;
  };
  const lineComment = () => example("pull_request_review_comment", "created", (x) => x.installation !== undefined);

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

  it("maps a review comment to a created comment on its file and line, under an id no issue comment or review has", () => {
    const p = lineComment();
    p.comment.line = 7;
    p.comment.side = "RIGHT";
    const event = convert("pull_request_review_comment", p);
    expect(event).toMatchObject({
      kind: "comment",
      action: "created",
      issue: { number: p.pull_request.number, isPullRequest: true },
      comment: { id: -(2 * p.comment.id + 1), body: p.comment.body, url: p.comment.html_url, createdAt: p.comment.created_at, in: { kind: "reviewComment", path: p.comment.path, line: 7, side: "RIGHT" } },
    });
  });

  it("keeps a review comment on an outdated line (line null) with its file only", () => {
    const p = lineComment();
    p.comment.line = null;
    const event = convert("pull_request_review_comment", p);
    expect(event?.kind === "comment" && event.comment.in).toMatchObject({ kind: "reviewComment", path: p.comment.path });
    expect(event?.kind === "comment" && event.comment.in).not.toHaveProperty("line");
  });

  it("keeps the ids of an issue comment, a review and a review comment apart when GitHub numbers them alike", () => {
    const submitted = review();
    submitted.review.id = 5;
    const onLine = lineComment();
    onLine.comment.id = 5;
    const ids = [
      convert("issue_comment", commentEvent("created", (x) => (x.comment.id = 5))),
      convert("pull_request_review", submitted),
      convert("pull_request_review_comment", onLine),
    ].map((e) => (e?.kind === "comment" ? e.comment.id : undefined));
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).toBe(5);
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

  it("rejects a review comment without its file, naming the field", () => {
    const p = lineComment();
    delete p.comment.path;
    expect(() => convert("pull_request_review_comment", p)).toThrow(/^Unexpected pull_request_review_comment payload: comment\.path/);
  });
});
