import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { HandledEventName } from "../../src/webhook/handledEvents.js";
import { toInboundEvent } from "../../src/webhook/toInboundEvent.js";

// Real payloads contributed to octokit/webhooks. Read as data (the file is 4 MB; typing it as a JSON
// module would make tsc slow) and narrowed to what these tests touch.
export type Json = Record<string, any>;
interface Definition {
  name: string;
  examples: Json[];
}
const require = createRequire(import.meta.url);
const definitions = JSON.parse(readFileSync(require.resolve("@octokit/webhooks-examples/api.github.com/index.json"), "utf8")) as Definition[];

/** A deep copy of the first example of `name` whose action is `action` (and that passes `where`). */
export function example(name: string, action: string, where: (p: Json) => boolean = () => true): Json {
  const found = definitions.find((d) => d.name === name)?.examples.find((p) => p.action === action && where(p));
  if (!found) throw new Error(`no ${name}.${action} example in @octokit/webhooks-examples`);
  return structuredClone(found);
}

export const INSTALLATION = { id: 4242, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==" };
export const RECEIVED = 1_700_000_000_000;
/** toInboundEvent of a delivery "delivery-1" received at RECEIVED. */
export const convert = (name: HandledEventName, payload: unknown) => toInboundEvent(name, payload, "delivery-1", RECEIVED);

/** issue_comment.<action>, delivered to an installation. */
export const commentEvent = (action = "created", over: (p: Json) => void = () => {}) => {
  const p = example("issue_comment", action);
  p.installation ??= { ...INSTALLATION };
  over(p);
  return p;
};
export const asBot = (body: string) => (p: Json) => {
  p.comment.user.type = "Bot";
  p.comment.user.login = "some-ci[bot]";
  p.comment.body = body;
};
export const labeled = (name: string) => {
  const p = example("issues", "labeled");
  p.installation = { ...INSTALLATION };
  p.label.name = name;
  return p;
};
export const closed = () => {
  // The examples have no issues.closed; a reopened delivery differs only in action and state.
  const p = example("issues", "reopened");
  p.action = "closed";
  p.issue.state = "closed";
  return p;
};

/** pull_request.<action> from GitHub's examples, delivered to an installation. */
export function pullRequestEvent(action: string): Json {
  return example("pull_request", action, (x) => x.installation !== undefined);
}

/** pull_request.synchronize from GitHub's examples, delivered to an installation. */
export const synchronizeEvent = () => {
  const p = example("pull_request", "synchronize");
  p.installation ??= INSTALLATION;
  return p;
};

/** pull_request_review.submitted from GitHub's examples, delivered to an installation, with `body`. */
export const review = (body: string | null = "Use SQLite.\n\nThe rest looks fine.") => {
  const p = example("pull_request_review", "submitted", (x) => x.installation !== undefined);
  p.review.body = body;
  return p;
};
/** pull_request_review_comment.created from GitHub's examples, delivered to an installation. */
export const lineComment = () => example("pull_request_review_comment", "created", (x) => x.installation !== undefined);
