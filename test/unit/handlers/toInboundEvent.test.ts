import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../../src/errors.js";
import { toInboundEvent } from "../../../src/handlers/toInboundEvent.js";
import { renderMarker } from "../../../src/protocol/marker.js";

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
const convert = (name: string, payload: unknown, label = "agent") => toInboundEvent(name, payload, "delivery-1", label, RECEIVED);

const commentCreated = (over: (p: Json) => void = () => {}) => {
  const p = example("issue_comment", "created", (x) => x.installation !== undefined);
  over(p);
  return p;
};
const labeled = (name: string) => {
  const p = example("issues", "labeled");
  p.installation = INSTALLATION;
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

describe("toInboundEvent: issue_comment.created", () => {
  it("maps a human's comment to a comment event with the fields the loop uses", () => {
    const p = commentCreated();
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
        state: p.issue.state,
        isPullRequest: false,
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

  it("defaults receivedAt to now", () => {
    const before = Date.now();
    const event = toInboundEvent("issue_comment", commentCreated(), "d", "agent");
    expect(event!.receivedAt).toBeGreaterThanOrEqual(before);
    expect(event!.receivedAt).toBeLessThanOrEqual(Date.now());
  });

  it("marks a comment on a pull request", () => {
    const p = commentCreated((x) => (x.issue.pull_request = { url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/1" }));
    expect(convert("issue_comment", p)?.issue.isPullRequest).toBe(true);
  });

  it("reads a null comment body and a null issue body as empty text", () => {
    const event = convert(
      "issue_comment",
      commentCreated((x) => {
        x.comment.body = null;
        x.issue.body = null;
      }),
    );
    expect(event?.kind).toBe("comment");
    expect(event?.issue.body).toBe("");
    if (event?.kind === "comment") expect(event.comment.body).toBe("");
  });

  it("ignores a delivery without an installation (not sent to an installed App)", () => {
    const p = commentCreated((x) => delete x.installation);
    expect(convert("issue_comment", p)).toBeUndefined();
    // The stock examples without an installation are ignored as they are.
    expect(convert("issue_comment", example("issue_comment", "created", (x) => x.installation === undefined))).toBeUndefined();
  });

  it("ignores a bot's comment without a marker (bots never answer or command)", () => {
    const p = commentCreated((x) => {
      x.comment.user.type = "Bot";
      x.comment.user.login = "some-ci[bot]";
      x.comment.body = "/answer 1 yes";
    });
    expect(convert("issue_comment", p)).toBeUndefined();
  });

  it("keeps a bot's comment that carries a marker (an agent's ask)", () => {
    const body = `### 🙋 The agent needs your input\n\n${renderMarker("ask", { v: 1 })}`;
    const p = commentCreated((x) => {
      x.comment.user.type = "Bot";
      x.comment.user.login = "escalation-agent[bot]";
      x.comment.body = body;
    });
    const event = convert("issue_comment", p);
    expect(event?.kind).toBe("comment");
    if (event?.kind === "comment") {
      expect(event.comment.body).toBe(body);
      expect(event.comment.author).toEqual({ login: "escalation-agent[bot]", type: "Bot" });
    }
  });

  it("keeps a bot's comment with a broken marker too (the loop reports it)", () => {
    const p = commentCreated((x) => {
      x.comment.user.type = "Bot";
      x.comment.body = "<!-- escalation:ask:v1 !!! -->";
    });
    expect(convert("issue_comment", p)?.kind).toBe("comment");
  });

  it.each<[string]>([["edited"], ["deleted"]])("ignores issue_comment.%s", (action) => {
    const p = example("issue_comment", action);
    p.installation = INSTALLATION;
    expect(convert("issue_comment", p)).toBeUndefined();
  });
});

describe("toInboundEvent: issues", () => {
  it.each<[string, string]>([
    ["agent", "agent"],
    ["Agent", "agent"],
    ["AGENT", "Agent"],
  ])("maps labeled with %j to a labeled event when the dispatch label is %j", (labelName, dispatch) => {
    const p = labeled(labelName);
    const event = convert("issues", p, dispatch);
    expect(event).toMatchObject({
      kind: "labeled",
      label: labelName,
      deliveryId: "delivery-1",
      installationId: INSTALLATION.id,
      repo: "Codertocat/Hello-World",
      issue: { number: p.issue.number, title: p.issue.title, state: "open", isPullRequest: false },
      sender: { login: "Codertocat", type: "User" },
    });
  });

  it.each<[string]>([["bug"], ["agents"], ["agent-done"], [""]])("ignores labeled with the other label %j", (labelName) => {
    expect(convert("issues", labeled(labelName), "agent")).toBeUndefined();
  });

  it("ignores labeled without an installation", () => {
    const p = labeled("agent");
    delete p.installation;
    expect(convert("issues", p, "agent")).toBeUndefined();
  });

  it("maps closed to a closed event", () => {
    const p = closed();
    const event = convert("issues", p);
    expect(event).toMatchObject({ kind: "closed", installationId: p.installation.id, repo: "Codertocat/Hello-World", issue: { number: p.issue.number, state: "closed" } });
    expect(event).not.toHaveProperty("label");
    expect(event).not.toHaveProperty("comment");
  });

  it.each<[string]>([["opened"], ["edited"], ["unlabeled"], ["assigned"], ["reopened"]])("ignores issues.%s", (action) => {
    const p = example("issues", action);
    p.installation = INSTALLATION;
    if (p.label) p.label.name = "agent"; // an unlabeled "agent" is not a dispatch
    expect(convert("issues", p)).toBeUndefined();
  });

  it("ignores events of other names that carry the same fields", () => {
    expect(convert("pull_request", labeled("agent"))).toBeUndefined();
    expect(convert("issues", commentCreated())).toBeUndefined();
  });
});

describe("toInboundEvent: malformed payloads", () => {
  it.each<[string, string, () => unknown, RegExp]>([
    ["no repository", "issue_comment", () => commentCreated((p) => delete p.repository), /repository/],
    ["an issue number as text", "issue_comment", () => commentCreated((p) => (p.issue.number = "1")), /issue\.number/],
    ["a comment without user", "issue_comment", () => commentCreated((p) => delete p.comment.user), /comment\.user/],
    ["an installation id as text", "issues", () => Object.assign(closed(), { installation: { id: "1" } }), /installation\.id/],
    ["a label without name", "issues", () => Object.assign(labeled("agent"), { label: {} }), /label\.name/],
    ["not an object", "issues", () => "hello", /\(value\)/],
    ["null", "issues", () => null, /\(value\)/],
  ])("throws ProtocolError for %s, naming the field", (_name, name, payload, field) => {
    expect(() => convert(name, payload())).toThrow(ProtocolError);
    expect(() => convert(name, payload())).toThrow(new RegExp(`^Unexpected ${name} payload: .*${field.source}`));
  });

  it("throws ProtocolError when the narrowed event breaks the job schema", () => {
    const p = commentCreated((x) => (x.repository.full_name = "not a repo name"));
    expect(() => convert("issue_comment", p)).toThrow(/^Rejected issue_comment event: repo:/);
    const zero = commentCreated((x) => (x.installation.id = 0));
    expect(() => convert("issue_comment", zero)).toThrow(/^Rejected issue_comment event: installationId:/);
  });
});
