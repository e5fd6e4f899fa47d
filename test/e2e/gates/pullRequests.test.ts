import { afterEach, describe, expect, it } from "vitest";
import { replyId } from "../../../src/github/replyIds.js";
import { Gates, REPO, waitFor } from "./support.js";
import { deliveryOutcomes } from "../../../src/queue/inboundQueue.js";

/**
 * Issue 13, "Pull requests": on a pull request GitHub sends `pull_request.*` for labels and closes,
 * and people answer in reviews and on lines of the diff; all through the simulator's signed webhooks.
 */
describe("gates: pull requests", () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  /** Opens a pull request and dispatches the agent by labelling it `agent`, as a maintainer. */
  function labelledPr(title: string, mode: string): number {
    const pr = g!.sim.createPullRequest(REPO, { title: `${title} [mode:${mode}]`, body: `Please work on: ${title}.`, author: "maintainer" });
    g!.sim.addLabels(REPO, pr.number, "maintainer", ["agent"]);
    return pr.number;
  }

  /** The delivery id of the newest webhook of `event`.`action`, once delivered. */
  function delivered(event: string, action: string): Promise<string> {
    return waitFor(
      `a ${event}.${action} delivery`,
      () => g!.sim.deliveries.filter((d) => d.event === event && d.action === action && d.status === 200).at(-1)?.id,
    );
  }

  it("labelling a pull request `agent` dispatches it (GitHub sends pull_request.labeled, not issues.labeled)", async () => {
    g = await Gates.start("done");
    const pr = labelledPr("Speed up the lookups", "done");
    const run = await g.run(pr, 0);
    expect(run.task).toContain("Please work on: Speed up the lookups.");
    await delivered("pull_request", "labeled");
    expect(g.sim.deliveries.filter((d) => d.event === "issues")).toEqual([]);
  });

  it("closing a pull request cancels its open question, as closing an issue does", async () => {
    g = await Gates.start("ask");
    const pr = labelledPr("Close me", "ask");
    const { comment } = await g.gate(pr);
    g.sim.closeIssue(REPO, pr, "maintainer");
    await delivered("pull_request", "closed");
    await waitFor("the gate cancelled", async () => (await g!.loop.app.services.gates.getGate(String(comment.id)))?.state === "cancelled" || undefined);
    await waitFor("the awaiting label off", () => !g!.labels(pr).includes("awaiting-human"));
    await g.statusLine(pr, "issue closed by @maintainer");
    expect(g.sim.deliveries.filter((d) => d.event === "issues")).toEqual([]);
  });

  it("a review with a body answers the open question exactly once: the echo, a redelivery that spawns nothing, a late review told who answered", async () => {
    g = await Gates.start("ask");
    const pr = labelledPr("Pick a store", "ask");
    await g.gate(pr);
    const review = g.sim.submitReview(REPO, pr, "maintainer", { body: "sqlite please, embedded is fine" });
    const run = await g.run(pr, 1);
    expect(run.task).toContain("Answer from human @maintainer");
    expect(run.task).toContain('choosing option "SQLite"');
    expect(run.task).toContain(`#pullrequestreview-${review.id}`);
    expect(run.task).toContain("Note that came with the choice:\n\n> please, embedded is fine");
    const echoed = await g.reply(pr, "Recorded as");
    expect(echoed.body).toMatch(/^📝 @maintainer: Recorded as \*\*2\. SQLite\*\*/);
    await g.resumedWith(replyId("review", review.id), pr);

    // GitHub redelivers under the same delivery id; the answer is recorded once, and resumed once.
    expect(await g.sim.redeliver(await delivered("pull_request_review", "submitted"))).toBe(200);
    // Another human's review moments later is told who answered: the loop has processed everything before it.
    g.sim.submitReview(REPO, pr, "admin", { body: "Postgres" });
    const late = await g.reply(pr, "already answered by @maintainer");
    expect(late.body).toMatch(/^@admin this question was already answered by @maintainer/);
    await waitFor("round 1 ended: the label off", () => !g!.labels(pr).includes("awaiting-human"));
    expect(g.runs(pr, 1)).toHaveLength(1);
    const gate = await g.loop.app.services.gates.lastGate({ repo: REPO, issue: pr });
    expect(gate).toMatchObject({ answeredBy: "maintainer", answerCommentId: replyId("review", review.id) });
  });

  it("a comment on a line of the diff answers, and the agent's task names that file and line", async () => {
    g = await Gates.start("ask");
    const pr = labelledPr("Pick a store on a line", "ask");
    await g.gate(pr);
    const onLine = g.sim.reviewComment(REPO, pr, "maintainer", { body: "2", path: "src/db/cache.ts", line: 12 });
    const run = await g.run(pr, 1);
    expect(run.task).toContain('choosing option "SQLite", in a review comment on `src/db/cache.ts`, line 12 of the new version:');
    expect(run.task).toContain(`#discussion_r${onLine.id}`);
    await g.resumedWith(replyId("reviewComment", onLine.id), pr);
    // GitHub wraps a lone line comment in a review without a body: that review answers nothing.
    await delivered("pull_request_review", "submitted");
    await waitFor("round 1 ended: the label off", () => !g!.labels(pr).includes("awaiting-human"));
    expect(g.runs(pr, 1)).toHaveLength(1);
  });

  it("a review by someone below the minimum permission is ignored; a maintainer's later review answers", async () => {
    g = await Gates.start("ask");
    const pr = labelledPr("Pick a store, carefully", "ask");
    const { comment } = await g.gate(pr);
    g.sim.submitReview(REPO, pr, "reader", { body: "Postgres" });
    g.sim.reviewComment(REPO, pr, "reader", { body: "Postgres", path: "src/db/cache.ts", line: 3 });
    g.sim.submitReview(REPO, pr, "maintainer", { body: "SQLite" });
    const run = await g.run(pr, 1);
    expect(run.task).toContain("Answer from human @maintainer");
    expect(run.task).toContain('choosing option "SQLite"');
    expect(run.task).not.toContain("@reader");
    const gate = await g.loop.app.services.gates.getGate(String(comment.id));
    expect(gate?.answers.map((a) => a.by)).toEqual(["maintainer"]);
    // What the loop made of each reply in a review (the bodiless review wrapping the line comment is not queued at all).
    const outcomes = async () => {
      const handled = await deliveryOutcomes(g!.loop.app.services.queues.inbound);
      return g!.sim.deliveries.filter((d) => d.event.startsWith("pull_request_review")).map((d) => handled.find((o) => o.delivery === d.id)?.outcome);
    };
    const seen = await waitFor("every review processed", async () => {
      const all = await outcomes();
      return all.filter(Boolean).length === 3 ? all.filter(Boolean) : undefined;
    });
    expect(seen.sort()).toEqual(["answer recorded", "ignored: author may not steer", "ignored: author may not steer"]);
    expect(g.replies(pr).filter((c) => c.body.includes("reader"))).toEqual([]);
  });

  it("an answer given on a line survives a Redis wipe: rebuilt as resumed with its file and line, not resumed again", async () => {
    g = await Gates.start("ask", { RECONCILE_INTERVAL: "off" });
    const pr = labelledPr("Remember the review", "ask");
    await g.gate(pr);
    g.sim.reviewComment(REPO, pr, "maintainer", { body: "SQLite", path: "src/db/cache.ts", line: 9, side: "LEFT" });
    await g.run(pr, 1);
    await waitFor("the label off: GitHub's record of the finished round", () => !g!.labels(pr).includes("awaiting-human"));
    await g.loop.wipeRedis();
    await g.loop.restart();
    const gate = await waitFor("the gate rebuilt", () => g!.loop.app.services.gates.lastGate({ repo: REPO, issue: pr }));
    expect(gate).toMatchObject({ state: "resumed", answeredBy: "maintainer" });
    expect(gate.answers[0]).toMatchObject({ option: "SQLite", about: { path: "src/db/cache.ts", line: 9, side: "LEFT" } });
    await g.quiet();
    expect(g.runs(pr, 1)).toHaveLength(1);
  });

  it("a review given while the app was down is read from the pull request's reviews at start-up, and resumes once", async () => {
    g = await Gates.start("ask", { RECONCILE_INTERVAL: "off" });
    const pr = labelledPr("Answered while down", "ask");
    await g.gate(pr);
    await g.loop.restart({ whileDown: () => void g!.sim.submitReview(REPO, pr, "admin", { body: "Postgres", event: "REQUEST_CHANGES" }) });
    const run = await g.run(pr, 1);
    expect(run.task).toContain("Answer from human @admin");
    expect(run.task).toContain('choosing option "Postgres"');
    await waitFor("round 1 ended: the label off", () => !g!.labels(pr).includes("awaiting-human"));
    expect(g.runs(pr, 1)).toHaveLength(1);
  });
});
