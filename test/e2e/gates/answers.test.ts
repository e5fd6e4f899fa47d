import { afterEach, describe, expect, it } from "vitest";
import { Gates, REPO, waitFor } from "./support.js";

/** Issue 3, "Answers": options, several questions, quoted text, edits and deletes. */
describe("gates: answers", () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("an option is selected by its number, its label in any case, or its label with trailing words kept as a note", async () => {
    g = await Gates.start("ask");
    const [byNumber, byLabel, withNote] = await Promise.all([g.asked("By number"), g.asked("By label"), g.asked("With a note")]);
    const replies = [
      g.comment(byNumber.issue, "maintainer", "2"),
      g.comment(byLabel.issue, "maintainer", "postgres"),
      g.comment(withNote.issue, "maintainer", "SQLite, keep it embedded"),
    ];
    const [one, two, three] = await Promise.all([g.run(byNumber.issue, 1), g.run(byLabel.issue, 1), g.run(withNote.issue, 1)]);

    expect(one.task).toContain("Answer from human @maintainer");
    expect(one.task).toContain('choosing option "SQLite"');
    expect(one.task).not.toContain("Note that came with the choice");
    expect(two.task).toContain('choosing option "Postgres"');
    expect(two.task).toContain("> postgres");
    expect(two.task).not.toContain("Note that came with the choice");
    expect(three.task).toContain('choosing option "SQLite"');
    expect(three.task).toContain("Note that came with the choice:\n\n> keep it embedded");

    // What GitHub shows: the label gone once the round that took each reply ended.
    for (const [issue, reply] of [byNumber.issue, byLabel.issue, withNote.issue].map((n, i) => [n, replies[i]!] as const)) {
      await g.resumedWith(reply.id, issue);
      await waitFor(`label removed on #${issue}`, () => !g!.labels(issue).includes("awaiting-human"));
    }
  });

  it("the acknowledgement echoes how a reply was read: an interpreted option, free text and why; an exact option gets none", async () => {
    g = await Gates.start("ask");
    const [prose, ambiguous, exact] = await Promise.all([g.asked("Prose"), g.asked("Ambiguous"), g.asked("Exact")]);
    g.comment(prose.issue, "maintainer", "sqlite please, embedded is fine");
    g.comment(ambiguous.issue, "maintainer", "SQLite or Postgres, whichever is faster");
    const reply = g.comment(exact.issue, "maintainer", "2");
    const [one, two] = await Promise.all([g.run(prose.issue, 1), g.run(ambiguous.issue, 1), g.run(exact.issue, 1)]);

    expect(one.task).toContain('choosing option "SQLite"');
    expect(one.task).toContain("Note that came with the choice:\n\n> please, embedded is fine");
    const echoed = await g.reply(prose.issue, "Recorded as");
    expect(echoed.body).toMatch(
      /^📝 @maintainer: Recorded as \*\*2\. SQLite\*\*, with the note `please, embedded is fine`\.\n\nNot what you meant\? Reply `\/reopen <corrected answer>`/,
    );

    // Naming two options is not a confident choice: the words go to the agent as they are, and the reply says so.
    expect(two.task).not.toContain("choosing option");
    expect(two.task).toContain("> SQLite or Postgres, whichever is faster");
    const free = await g.reply(ambiguous.issue, "Recorded as free text");
    expect(free.body).toContain("free text (it names 1. Postgres and 2. SQLite, so no option was chosen): `SQLite or Postgres, whichever is faster`");

    // "2" was read as written: no comment, only a line kept for the status comment's next render.
    await g.resumedWith(reply.id, exact.issue);
    await waitFor("the label off on the exact reply's issue", () => !g!.labels(exact.issue).includes("awaiting-human"));
    await g.quiet();
    expect(g.replies(exact.issue)).toEqual([]);
    const lines = await g.loop.app.services.statusLog.statusLines({ repo: REPO, issue: exact.issue });
    expect(lines.join("\n")).toContain(`the answer of @maintainer to gate ${exact.comment.id} was read as 2. SQLite`);
    expect(g.replies(prose.issue)).toHaveLength(1);
  });

  it("a wrong reading is corrected with /reopen: the agent runs again with the corrected option", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Misread");
    g.comment(issue, "maintainer", "I would not use Postgres here");
    await g.reply(issue, "Recorded as free text (it names 1. Postgres but does not start with it");
    await g.run(issue, 1);
    g.comment(issue, "maintainer", "/reopen 2");
    const { task } = await g.run(issue, 2);
    expect(task).toContain('choosing option "SQLite"');
    await g.statusLine(issue, `@maintainer reopened gate ${ask.id} with a correction, read as 2. SQLite`);
  });

  it("several questions: numbered lines answer them in order; a partial reply says what remains and only a complete set resumes", async () => {
    g = await Gates.start("ask2");
    const [whole, parts] = await Promise.all([g.asked("Answered at once"), g.asked("Answered in parts")]);
    expect(whole.ask.questions.map((q) => q.text)).toEqual(["Which database should the cache use?", "Should old entries expire?"]);

    g.comment(whole.issue, "maintainer", "1. Postgres\n2: yes, after a day");
    g.comment(parts.issue, "maintainer", "1. SQLite");

    const complete = await g.run(whole.issue, 1);
    expect(complete.task).toMatch(
      /\*\*Q1\. Which database should the cache use\?\*\*\nOptions: 1\. Postgres; 2\. SQLite\nAnswer from human @maintainer at \S+ \(\S+\), choosing option "Postgres":\n\n> Postgres\n/,
    );
    expect(complete.task).toMatch(/\*\*Q2\. Should old entries expire\?\*\*\nAnswer from human @maintainer at \S+ \(\S+\):\n\n> yes, after a day\n/);
    expect(g.replies(whole.issue)).toEqual([]);

    const partial = await g.reply(parts.issue, "Recorded 1 of 2 answers");
    expect(partial.body).toContain("Still open: **2.** Should old entries expire?");
    expect(partial.body).not.toContain("**1.**");
    expect(partial.body).toContain("`/answer 2 your answer`");
    await g.quiet();
    expect(g.runs(parts.issue, 1)).toEqual([]);
    expect(g.labels(parts.issue)).toContain("awaiting-human");

    const last = g.comment(parts.issue, "admin", "/answer 2 no, keep them forever");
    const resumed = await g.run(parts.issue, 1);
    expect(resumed.task).toMatch(/Answer from human @maintainer at \S+ \(\S+\), choosing option "SQLite":\n\n> SQLite\n/);
    expect(resumed.task).toMatch(/\*\*Q2\. Should old entries expire\?\*\*\nAnswer from human @admin at \S+ \(\S+\):\n\n> no, keep them forever\n/);
    await g.resumedWith(last.id, parts.issue);
    // One short comment for the partial answer, none for the completing one.
    expect(g.replies(parts.issue).map((c) => c.body.slice(0, 25))).toEqual(["Recorded 1 of 2 answers. "]);
    expect(g.runs(parts.issue)).toHaveLength(2);
  });

  it("quoted lines and the quoted tail of an e-mail reply are never taken as the answer", async () => {
    g = await Gates.start("ask");
    const { issue } = await g.asked("E-mail replies");
    // Only a quote of the question: no answer at all.
    const quoteOnly = g.comment(issue, "maintainer", "> **Which database should the cache use?**\n> 2. SQLite");
    await g.quiet();
    expect(g.runs(issue, 1)).toEqual([]);
    expect(g.reactions(quoteOnly.id, issue)).toEqual([]);
    expect(g.labels(issue)).toContain("awaiting-human");

    g.comment(
      issue,
      "maintainer",
      [
        "> Which database should the cache use?",
        "",
        "Postgres, it is already in production",
        "",
        "On Tue, Jan 2, 2024 at 10:00 AM escalation[bot] <notifications@github.com> wrote:",
        "",
        "SQLite is what the agent suggested",
        "> 2. SQLite",
      ].join("\n"),
    );
    const { task } = await g.run(issue, 1);
    expect(task).toContain('choosing option "Postgres":\n\n> Postgres, it is already in production\n');
    expect(task).toContain("Note that came with the choice:\n\n> it is already in production\n");
    expect(task).not.toContain("wrote:");
    expect(task).not.toContain("SQLite is what the agent suggested");
    expect(task).not.toContain("> > ");
  });

  it("an answer edited before the resume started replaces the recorded one", async () => {
    // One agent slot, held by a sleeping agent on another issue, keeps the resume queued.
    g = await Gates.start("ask", { AGENT_CONCURRENCY: "1" });
    const { issue, comment: ask } = await g.asked("Edited in time");
    const busy = g.dispatch("Long job", { mode: "sleep" });
    const sleeper = await g.run(busy, 0);

    const reply = g.comment(issue, "maintainer", "Postgres");
    await waitFor("the answer recorded", async () => (await g!.loop.app.services.gates.getGate(String(ask.id)))?.state === "answered");
    g.sim.editComment(REPO, reply.id, "maintainer", "SQLite, on second thought");
    await g.statusLine(issue, `@maintainer edited the answer to gate ${ask.id} before the agent resumed; the edit is what the agent gets`);
    expect(g.runs(issue, 1)).toEqual([]);

    g.comment(busy, "maintainer", "/stop");
    const { task } = await g.run(issue, 1);
    expect(g.signalled(sleeper.pid, "SIGTERM")).toBeDefined();
    expect(task).toContain('choosing option "SQLite"');
    expect(task).toContain("> on second thought");
    expect(task).not.toContain('choosing option "Postgres"');
    await g.resumedWith(reply.id, issue);
    expect(g.replies(issue)).toEqual([]);
  });

  it("a partial answer edited while the gate is still open replaces what it recorded", async () => {
    g = await Gates.start("ask2");
    const { issue, comment: ask } = await g.asked("Edited partial answer");
    const first = g.comment(issue, "maintainer", "1. SQLite");
    await g.reply(issue, "Recorded 1 of 2 answers");
    g.sim.editComment(REPO, first.id, "maintainer", "1. Postgres after all");
    await g.statusLine(issue, `@maintainer edited an answer to gate ${ask.id} before it was complete; the edit replaces it`);
    expect(g.runs(issue, 1)).toEqual([]);

    g.comment(issue, "admin", "2. yes");
    const { task } = await g.run(issue, 1);
    expect(task).toMatch(/Answer from human @maintainer at \S+ \(\S+\), choosing option "Postgres":\n\n> Postgres after all\n/);
    expect(task).not.toContain('"SQLite"');
    // The edit repeats the partial answer: no second "Recorded 1 of 2" comment.
    expect(g.replies(issue)).toHaveLength(1);
  });

  it("an answer edited after the resume started re-runs nothing: later rounds get the edit, and a visible note says so", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Edited too late");
    const reply = g.comment(issue, "maintainer", "Postgres");
    await g.run(issue, 1);
    await g.resumedWith(reply.id, issue);

    g.sim.editComment(REPO, reply.id, "maintainer", "SQLite");
    const note = await g.reply(issue, "your edit came after the agent had resumed");
    expect(note.body).toContain("@maintainer");
    expect(note.body).toContain("/reopen");
    await g.statusLine(issue, `@maintainer edited the answer to gate ${ask.id} after the agent had resumed with it; later rounds get the edited text`);
    expect((await g.loop.app.services.gates.getGate(String(ask.id)))?.answers[0]?.option).toBe("SQLite");
    await g.quiet();
    expect(g.runs(issue, 2)).toEqual([]);
    expect(g.replies(issue)).toHaveLength(1);
  });

  it("deleting the question comment cancels its gate: no resume, label removed, later replies ignored", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Question withdrawn");
    g.sim.deleteComment(REPO, ask.id, "maintainer");
    await g.statusLine(issue, `the question of gate ${ask.id} was deleted by @maintainer; gate cancelled, no resume`);
    await waitFor("label removed", () => !g!.labels(issue).includes("awaiting-human"));

    const late = g.comment(issue, "maintainer", "SQLite");
    await g.quiet();
    expect(g.runs(issue, 1)).toEqual([]);
    expect(g.reactions(late.id, issue)).toEqual([]);
    expect(g.replies(issue)).toEqual([]);
  });
});
