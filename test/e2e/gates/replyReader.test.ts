import { afterEach, describe, expect, it } from "vitest";
import { Gates, waitFor } from "./support.js";
import { deliveryOutcomes } from "../../../src/queue/inboundQueue.js";

/**
 * Issue 13, "The reply reader", through the simulator with signed webhooks: e-mail replies in
 * another language, replies that address the app, reactions that answer nothing, and discussion.
 * The agent's question is "Which database…" with the options 1. Postgres and 2. SQLite.
 */
describe("gates: the reply reader", () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  /** What the inbound worker made of a comment: proof that the loop has processed it. */
  const handled = (gates: Gates, commentId: number): Promise<string> =>
    waitFor(`the handling of comment ${commentId}`, async () => {
      const outcomes = await deliveryOutcomes(gates.loop.app.services.queues.inbound);
      return outcomes.find((o) => o.kind === "comment" && o.comment === commentId)?.outcome;
    });

  it("a German e-mail reply answers, and its header and quoted tail become no note and no echo", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("German e-mail");
    const header = "Am Do., 3. Dez. 2026 um 10:00 Uhr schrieb escalation[bot] <notifications@github.com>:";
    const reply = g.comment(issue, "maintainer", `2\r\n\r\n${header}\r\n\r\n> Which database should the cache use?\r\n>\r\n> 1. Postgres\r\n> 2. SQLite\r\n`);
    const { task } = await g.run(issue, 1);
    expect(task).toContain('choosing option "SQLite"');
    expect(task).not.toContain("Note that came with the choice");
    expect(task).not.toContain("schrieb");
    // Read as written: no echo comment, only the status line.
    await g.resumedWith(reply.id, issue);
    const lines = await g.loop.app.services.statusLog.statusLines({ repo: "acme/widgets", issue });
    expect(lines.join("\n")).toContain(`the answer of @maintainer to gate ${ask.id} was read as 2. SQLite`);
    await waitFor(`label removed on #${issue}`, () => !g!.labels(issue).includes("awaiting-human"));
    expect(g.replies(issue).filter((c) => c.body.includes("Recorded as"))).toEqual([]);
  });

  it("a reply addressed to the app, or saying Option N or (N), chooses the option", async () => {
    g = await Gates.start("ask");
    const slug = g.sim.botLogin.replace(/\[bot\]$/, "");
    const bodies = [`@${slug} 2`, `@${g.sim.botLogin} 1`, `@${slug} answer: SQLite`, "Option 2", "(1)"];
    const chosen = ["SQLite", "Postgres", "SQLite", "SQLite", "Postgres"];
    const asked = await Promise.all(bodies.map((_, i) => g!.asked(`Addressed ${i}`)));
    bodies.forEach((body, i) => g!.comment(asked[i]!.issue, "maintainer", body));
    const runs = await Promise.all(asked.map(({ issue }) => g!.run(issue, 1)));
    runs.forEach((run, i) => {
      expect(run.task, bodies[i]).toContain(`choosing option "${chosen[i]}"`);
      expect(run.task, bodies[i]).not.toContain("Note that came with the choice");
    });
  });

  it("a 👍-only reply records nothing and gets one how-to comment; a second 👍 from the same person gets none", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Thumbs up");
    const first = g.comment(issue, "maintainer", "👍");
    const howTo = await g.reply(issue, "was not taken as an answer");
    expect(howTo.body).toBe(
      "@maintainer that was not taken as an answer. To answer, reply with an option's number or name, like `2` or `Postgres`. To talk without answering, start the comment with `/discuss` or with `@someone`; `/help` lists the rest.",
    );
    expect(await handled(g, first.id)).toBe("not an answer: a reaction");
    expect((await g.loop.app.services.gates.getGate(String(ask.id)))?.state).toBe("open");

    const second = g.comment(issue, "maintainer", "👍");
    expect(await handled(g, second.id)).toBe("not an answer: a reaction");
    expect((await g.loop.app.services.gates.getGate(String(ask.id)))?.answers).toEqual([]);

    // A real answer after it resumes the agent; by the time its round has ended and the label is off
    // (feedback is written in the order it was queued), a second how-to would have been posted.
    const answer = g.comment(issue, "maintainer", "1");
    const { task } = await g.run(issue, 1);
    expect(task).toContain('choosing option "Postgres"');
    expect(task).not.toContain("👍");
    await g.resumedWith(answer.id, issue);
    await waitFor(`label removed on #${issue}`, () => !g!.labels(issue).includes("awaiting-human"));
    expect(g.replies(issue).filter((c) => c.body.includes("was not taken as an answer"))).toHaveLength(1);
  });

  it("discussion leaves the gate waiting, unanswered and without a reply; the answer after it resumes", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Discussion");
    const discussion = [
      g.comment(issue, "maintainer", "@alice do we need a cache at all? I'd lean to 2."),
      g.comment(issue, "maintainer", "/discuss SQLite would do, but let's wait for Bob"),
      g.comment(issue, "maintainer", "Is Postgres already running in production?"),
    ];
    const outcomes = await Promise.all(discussion.map((c) => handled(g!, c.id)));
    expect(outcomes).toEqual(["discussion: addressed to someone else", "discussion: not an answer", "discussion: a question"]);
    const gate = await g.loop.app.services.gates.getGate(String(ask.id));
    expect(gate?.state).toBe("open");
    expect(gate?.answers).toEqual([]);
    expect(g.labels(issue)).toContain("awaiting-human");
    expect(g.runs(issue, 1)).toEqual([]);

    const answer = g.comment(issue, "maintainer", "2");
    const { task } = await g.run(issue, 1);
    expect(task).toContain('choosing option "SQLite"');
    for (const words of ["do we need a cache", "wait for Bob", "already running in production"]) expect(task).not.toContain(words);
    await g.resumedWith(answer.id, issue);
    await waitFor(`label removed on #${issue}`, () => !g!.labels(issue).includes("awaiting-human"));
    expect(g.replies(issue)).toEqual([]);
  });

  it("on an approval: a comment addressed to someone else casts no vote and gets no hint; a vote may address the app", async () => {
    g = await Gates.start("approval");
    const slug = g.sim.botLogin.replace(/\[bot\]$/, "");
    const { issue } = await g.asked("Approval discussion");
    const aside = g.comment(issue, "maintainer", "@admin is the rollout plan reviewed?");
    expect(await handled(g, aside.id)).toBe("discussion: addressed to someone else");
    g.comment(issue, "maintainer", `@${slug} approve`);
    const ack = await g.reply(issue, "Approvals 1/2");
    expect(ack.body).toBe("🗳️ @maintainer approved. Approvals 1/2: @maintainer. Waiting for 1 more approval.");
    g.comment(issue, "admin", "👍");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("APPROVED: 2 of 2 required approvals");
    expect(task).not.toContain("rollout plan reviewed");
    expect(g.replies(issue).filter((c) => c.body.includes("not counted as a vote"))).toEqual([]);
  });
});
