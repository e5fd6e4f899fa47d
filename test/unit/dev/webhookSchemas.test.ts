import { describe, expect, it } from "vitest";
import type { GitHubSimulator } from "../../../tools/simulator/index.js";
import { captureDeliveries, type CapturedDelivery } from "../../support/github/captureDeliveries.js";
import { WEBHOOK_DESCRIPTIONS, WebhookSchemas } from "../../support/github/webhookSchemas.js";

/**
 * Every webhook the simulator can send must validate against GitHub's official schema for its event
 * and action. The table is what the simulator actually sent while driven through all its operations,
 * plus the pairs it must keep sending: an event it starts sending later is checked without listing it.
 */

const EXPECTED = [
  "issues/opened",
  "issues/labeled",
  "issues/unlabeled",
  "issues/closed",
  "issues/reopened",
  "issue_comment/created",
  "issue_comment/edited",
  "issue_comment/deleted",
  "pull_request/opened",
  "pull_request/labeled",
  "pull_request/unlabeled",
  "pull_request/closed",
  "pull_request/reopened",
  "pull_request/synchronize",
  "pull_request_review/submitted",
  "pull_request_review_comment/created",
];

/** Each operation, by people, bots and the app, on an organization's and on a user's repository, on issues and pull requests. */
function driveEverything(sim: GitHubSimulator): void {
  sim.addUser("alice");
  sim.addRepo("acme/widgets");
  sim.addRepo("alice/notes");
  sim.addUser("maintainer");
  sim.setPermission("acme/widgets", "maintainer", "write");
  sim.addUser("renovate[bot]", { type: "Bot" });
  sim.setPermission("acme/widgets", "renovate[bot]", "write");

  for (const [repo, person] of [
    ["acme/widgets", "maintainer"],
    ["alice/notes", "alice"],
  ] as const) {
    const issue = sim.createIssue(repo, { title: "Flaky build", body: "It fails on Tuesdays.", author: person, labels: ["bug"], assignees: [person] });
    const comment = sim.comment(repo, issue.number, person, "Still failing.");
    sim.editComment(repo, comment.id, person, "Still failing, see the log.");
    sim.deleteComment(repo, comment.id, person);
    sim.addLabels(repo, issue.number, person, ["agent"]);
    sim.removeLabel(repo, issue.number, person, "agent");
    sim.closeIssue(repo, issue.number, person);
    sim.reopenIssue(repo, issue.number, person);

    const pr = sim.createPullRequest(repo, { title: "Fix the build", author: person });
    sim.pushCommit(repo, pr.number, person);
    sim.addLabels(repo, pr.number, person, ["agent"]);
    sim.removeLabel(repo, pr.number, person, "agent");
    sim.comment(repo, pr.number, person, "Ready for review.");
    sim.closeIssue(repo, pr.number, person);
    sim.reopenIssue(repo, pr.number, person);
    sim.submitReview(repo, pr.number, person, { body: "Looks good.", event: "COMMENT" });
    sim.reviewComment(repo, pr.number, person, { body: "Typo here.", path: "README.md", line: 3 });
  }
  // A bot user and the app itself (through its installation) act too.
  sim.comment("acme/widgets", 1, "renovate[bot]", "Lockfile maintenance.");
  sim.comment("acme/widgets", 1, sim.botLogin, "Dispatched.");
  sim.addLabels("acme/widgets", 1, sim.botLogin, ["agent:running"]);
  sim.closeIssue("acme/widgets", 1, sim.botLogin);
}

const captured = await captureDeliveries(driveEverything);
const pairs = [...new Set([...EXPECTED, ...captured.map((d) => `${d.event}/${d.action}`)])].sort();

function deliveriesOf(pair: string): CapturedDelivery[] {
  return captured.filter((d) => `${d.event}/${d.action}` === pair);
}

describe.each(WEBHOOK_DESCRIPTIONS)("simulator webhooks against GitHub's schemas (%s)", (description) => {
  const schemas = new WebhookSchemas(description);

  it.each(pairs)("%s", (pair) => {
    const deliveries = deliveriesOf(pair);
    expect(deliveries.length, `the simulator sent no ${pair}`).toBeGreaterThan(0);
    for (const delivery of deliveries) {
      const check = schemas.check(delivery.event, delivery.action, delivery.payload);
      expect(check.found, `GitHub documents no ${pair} webhook`).toBe(true);
      expect(check.found && check.problems).toEqual([]);
    }
  });

  it("reports a payload with one field broken", () => {
    const valid = deliveriesOf("issue_comment/created")[0]!;
    expect(schemas.check(valid.event, valid.action, valid.payload)).toEqual({ found: true, problems: [] });
    const broken = structuredClone(valid.payload) as { repository: Record<string, unknown> };
    delete broken.repository.node_id;
    const check = schemas.check(valid.event, valid.action, broken);
    expect(check.found && check.problems).toContainEqual({ at: "/repository", message: "missing node_id" });
  });

  it("finds no schema for an event GitHub does not send", () => {
    expect(schemas.check("issues", "exploded", {})).toEqual({ found: false });
  });
});

it("percent-encodes a bot's login in its user URLs, as GitHub does", () => {
  const sender = captured.find((d) => (d.payload.sender as { login: string }).login === "renovate[bot]")?.payload.sender as Record<string, string>;
  expect(sender.url).toMatch(/\/users\/renovate%5Bbot%5D$/);
  expect(sender.html_url).toMatch(/\/apps\/renovate$/);
});
