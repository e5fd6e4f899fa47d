import { afterEach, describe, expect, it } from "vitest";
import { newAskId, renderAskComment, validateAsk } from "../../../src/protocol/ask.js";
import { deliveryOutcomes } from "../../../src/queue/inboundQueue.js";
import { Gates, REPO, afterSecondOf, waitFor } from "./support.js";

/**
 * GitHub does not promise the order of deliveries, and the app handles many at once: a reply can be
 * handled before the question it answers. It is read when that question opens, not left to the next
 * reconciliation (turned off here, so only that path can take it).
 */
describe("gates: a reply handled before its question", () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  /** What the inbound worker made of the delivery of comment `id`. */
  const handled = (id: number) =>
    waitFor(`the delivery of comment ${id} handled`, async () => {
      const outcomes = await deliveryOutcomes(g!.loop.app.services.queues.inbound);
      return outcomes.find((o) => o.comment === id)?.outcome;
    });

  it("is taken as the answer once the question's delivery arrives; a comment written before the question is not", async () => {
    g = await Gates.start("ask", { RECONCILE_INTERVAL: "off" });
    const issue = g.sim.createIssue(REPO, { title: "Early reply", body: "Cache the lookups.", author: "maintainer" }).number;
    const before = g.comment(issue, "maintainer", "SQLite would be my guess, but let the agent ask");
    expect(await handled(before.id)).toBe("ignored: no open gate");
    await afterSecondOf(before.created_at);

    // The question's delivery is lost for now: GitHub sends it after the reply's.
    await g.quiet();
    g.sim.loseDeliveries(1);
    const ask = validateAsk({ v: 1, id: newAskId(), round: 0, questions: [{ text: "Which database should the cache use?", options: ["Postgres", "SQLite"] }] });
    const question = g.comment(issue, g.sim.botLogin, renderAskComment(ask));
    const lost = await waitFor("the question's delivery lost", () => g!.sim.lostDeliveries.at(-1));
    expect(lost.event).toBe("issue_comment");
    const reply = g.comment(issue, "maintainer", "2");
    expect(await handled(reply.id)).toBe("ignored: no open gate");
    expect(await g.loop.app.services.gates.getGate(String(question.id))).toBeUndefined();

    await g.sim.redeliver(lost.id);
    await g.resumedWith(reply.id, issue);
    const { task } = await g.run(issue, 1);
    expect(task).toContain("Answer from human @maintainer");
    expect(task).toContain('choosing option "SQLite"');
    expect(task).not.toContain("let the agent ask");
    await g.quiet();
    const gate = await g.loop.app.services.gates.getGate(String(question.id));
    expect(gate?.answerCommentId).toBe(reply.id);
    expect(g.runs(issue, 1)).toHaveLength(1);
  });
});
