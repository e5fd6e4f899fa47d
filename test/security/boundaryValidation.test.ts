import { Webhooks } from "@octokit/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { renderMarker } from "../../src/protocol/marker.js";
import { REPO, SecureLoop, WEBHOOK_SECRET } from "./support.js";
import { deliveriesHeld } from "../support/inboundRecords.js";
import { deliveryRecorded } from "../../src/queue/inboundQueue.js";

/**
 * Issue 7: every external input is validated at the boundary with zod, with size limits (comment
 * bodies up to GitHub's 65,536 characters, ask markers 16,384). Oversize or malformed payloads and
 * markers are rejected with a typed error that is logged; nothing is thrown out of a handler (the
 * delivery is answered 2xx, no job fails) and no gate opens.
 */
describe("security: validation at the boundary", { timeout: 60_000 }, () => {
  let loop: SecureLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  /** An issue_comment.created delivery as GitHub sends it, signed, straight to the app. */
  async function deliver(edit: (payload: Record<string, any>) => void): Promise<{ status: number; delivery: string }> {
    const payload: Record<string, any> = {
      action: "created",
      installation: { id: loop!.installationId },
      repository: { id: 1, name: "widgets", full_name: REPO, owner: { login: "acme" } },
      issue: {
        number: 1,
        title: "Add a cache",
        body: "x",
        html_url: `https://github.com/${REPO}/issues/1`,
        state: "open",
        labels: [],
        assignees: [],
        user: { login: "maintainer" },
      },
      sender: { login: "maintainer", type: "User" },
      comment: {
        id: 777_001,
        body: "SQLite",
        html_url: `https://github.com/${REPO}/issues/1#issuecomment-777001`,
        created_at: new Date().toISOString(),
        user: { login: "maintainer", type: "User" },
      },
    };
    edit(payload);
    const body = JSON.stringify(payload);
    const delivery = crypto.randomUUID();
    const response = await fetch(`${loop!.app.url}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": delivery,
        "x-hub-signature-256": await new Webhooks({ secret: WEBHOOK_SECRET }).sign(body),
      },
      body,
    });
    await response.text();
    return { status: response.status, delivery };
  }

  const rejected = (delivery: string) => loop!.entries().find((e) => e.delivery === delivery && e.msg === "rejected webhook payload");

  it("an oversize comment body or a malformed payload is rejected with a logged, typed error; 2xx, nothing queued, no answer", async () => {
    loop = await SecureLoop.start({ mode: "ask" });
    const { issue } = await loop.dispatch("Add a cache", { ask: true });
    expect(issue).toBe(1);
    const inbound = () => deliveriesHeld(loop!.app.services.queues.inbound);
    await loop.quiet();
    const inboundBefore = await inbound();

    const cases: Array<[string, (p: Record<string, any>) => void, RegExp]> = [
      ["a comment body over 65,536 characters", (p) => (p.comment.body = `SQLite ${"x".repeat(65_530)}`), /comment\.body/],
      ["an issue number that is not a number", (p) => (p.issue.number = "1"), /issue\.number/],
      ["a comment without an author", (p) => delete p.comment.user, /comment\.user/],
      ["an issue title over 1,024 characters", (p) => (p.issue.title = "t".repeat(1025)), /issue\.title/],
      ["a repository name that is not owner/name", (p) => (p.repository.full_name = "../../etc"), /repo/],
    ];
    for (const [name, edit, field] of cases) {
      const { status, delivery } = await deliver(edit);
      expect(status, name).toBeGreaterThanOrEqual(200);
      expect(status, name).toBeLessThan(300);
      const line = rejected(delivery);
      expect(line, name).toBeDefined();
      expect(line!.level, name).toBe(40);
      expect(String(line!.err), name).toMatch(/^(Unexpected|Rejected) issue_comment (payload|event): /);
      expect(String(line!.err), name).toMatch(field);
    }
    await loop.quiet();
    expect(await inbound()).toBe(inboundBefore);
    expect(await loop.app.services.gates.lastGate({ repo: REPO, issue })).toMatchObject({ state: "open", answers: [] });
    expect(loop.runs(issue, 1)).toEqual([]);

    // At the limit the same delivery is accepted.
    const { delivery } = await deliver((p) => (p.comment.body = `SQLite ${"x".repeat(65_536 - 7)}`));
    // The app answers once the event is queued (or rejected and logged): its record is the proof it was taken.
    expect(await deliveryRecorded(loop.app.services.queues.inbound, delivery)).toBe(true);
    expect(rejected(delivery)).toBeUndefined();
  });

  it("an oversize, undecodable or invalid ask marker, even from the App itself, opens no gate: logged, the handler does not fail", async () => {
    loop = await SecureLoop.start();
    const issue = loop.sim.createIssue(REPO, { title: "Markers", body: "x", author: "maintainer" }).number;
    const valid = { v: 1, id: "abcdefg", round: 0, questions: [{ text: "Which database?" }] };
    const bodies = [
      `<!-- escalation:ask:v1 ${"A".repeat(16_385)} -->`,
      "<!-- escalation:ask:v1 bm90IGpzb24 -->",
      renderMarker("ask", { ...valid, questions: [] }),
      renderMarker("ask", { ...valid, questions: [{ text: "q".repeat(4001) }] }),
      renderMarker("ask", { ...valid, id: "../../x" }),
    ];
    const comments = bodies.map((body) => loop!.sim.comment(REPO, issue, loop!.sim.botLogin, body));
    for (const comment of comments) expect(await loop.handled(comment.id)).toBe("ignored: agent comment without a valid ask");
    const malformed = comments.map((c) => loop!.entries().find((e) => e.msg === "malformed ask marker" && e.comment === c.id)!);
    expect(malformed.every(Boolean)).toBe(true);
    expect(malformed.every((e) => e.level === 40)).toBe(true);
    expect(String(malformed[0]!.err)).toContain("longer than 16384 characters");
    expect(String(malformed[1]!.err)).toContain("not valid base64url JSON");
    expect(String(malformed[2]!.err)).toMatch(/^Invalid ask: questions/);
    expect(await loop.app.services.gates.lastGate({ repo: REPO, issue })).toBeUndefined();
    expect(loop.sim.issue(REPO, issue).labels).not.toContain("awaiting-human");
    expect(await loop.app.services.queues.inbound.getJobCounts("failed")).toEqual({ failed: 0 });
  });
});
