import { afterEach, describe, expect, it } from "vitest";
import { afterSecondOf, Gates, REPO, waitFor } from "./support.js";

/** Issue 9, "Stale questions": a question that no longer stands keeps a late answer but resumes nothing. */
/**
 * Each step may take 30 s of the minute a test has: these tests wipe Redis and restart the app, and
 * with two busy loops beside the other test files the reply after a restart once took over 15 s.
 */
const STEP_MS = 30_000;
const start = (mode: string) => Gates.start(mode, {}, { stepMs: STEP_MS });

describe("gates: stale questions", { timeout: 60_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("an edited question is superseded (also after a Redis wipe); an answer to it is recorded, not resumed, the reply says why, and /agent folds it in", async () => {
    g = await start("ask");
    const { issue, comment: ask } = await g.asked("Edited");
    g.sim.editComment(REPO, ask.id, g.sim.botLogin, ask.body.replace("Which database", "Which embedded database"));
    await g.statusLine(issue, new RegExp(`gate ${ask.id} superseded: the question was edited at \\S+; an answer to it will be recorded but not resumed`));
    await waitFor("the label off", () => !g!.labels(issue).includes("awaiting-human") || undefined, STEP_MS);

    // GitHub's record (the status comment) carries the superseded state and why.
    await g.loop.wipeRedis();
    await g.loop.restart();
    const rebuilt = await waitFor("the rebuilt gate", () => g!.loop.app.services.gates.getGate(String(ask.id)), STEP_MS);
    expect(rebuilt).toMatchObject({ state: "superseded", closedReason: expect.stringMatching(/^the question was edited at /) });

    const late = g.comment(issue, "maintainer", "SQLite");
    const why = await g.reply(issue, "this question was superseded");
    expect(why.body).toMatch(
      /^@maintainer this question was superseded \(the question was edited at \S+\); your answer was recorded but the agent was not re-run\. If it still applies, comment `\/agent` to start the agent again: its task includes your answer, marked as given to a superseded question\./,
    );
    await g.quiet();
    expect(g.runs(issue, 1)).toEqual([]);
    const gate = await g.loop.app.services.gates.getGate(String(ask.id));
    expect(gate).toMatchObject({ state: "superseded", answerCommentId: late.id, answers: [{ option: "SQLite", by: "maintainer" }] });

    g.comment(issue, "maintainer", "/agent");
    const { task } = await g.run(issue, 1);
    expect(task).toMatch(/This question was superseded before it was answered \(the question was edited at \S+\); the answer below may no longer fit\./);
    expect(task).toMatch(/choosing option "SQLite":\n\n> SQLite\n/);
    expect(g.replies(issue)).toHaveLength(1);
  });

  it("a rebuild after a Redis wipe that lost the edit before the status comment showed it reads the edit from the comment itself", async () => {
    g = await start("ask");
    const { issue, comment: ask } = await g.asked("Edited, then wiped");
    await afterSecondOf(ask.created_at); // GitHub's timestamps have whole seconds: the edit must be visibly later
    g.sim.editComment(REPO, ask.id, g.sim.botLogin, ask.body.replace("Which database", "Which embedded database"));
    await waitFor("the gate superseded", async () => (await g!.loop.app.services.gates.getGate(String(ask.id)))?.state === "superseded" || undefined, STEP_MS);
    await g.loop.wipeRedis(); // within STATUS_DEBOUNCE: the status comment does not show it yet
    expect(g.statusBody(issue)).toBe("");
    await g.loop.restart();
    const rebuilt = await waitFor("the rebuilt gate", () => g!.loop.app.services.gates.getGate(String(ask.id)), STEP_MS);
    expect(rebuilt).toMatchObject({ state: "superseded", closedReason: expect.stringMatching(/^the question was edited at \S+Z$/) });
    await waitFor("the label off", () => !g!.labels(issue).includes("awaiting-human") || undefined, STEP_MS);
    g.comment(issue, "maintainer", "SQLite");
    await g.reply(issue, "this question was superseded (the question was edited at");
    await g.quiet();
    expect(g.runs(issue, 1)).toEqual([]);
  });

  it("new commits on a pull request after its question supersede it (pull_request.synchronize); the answer's reply names the push", async () => {
    g = await start("ask");
    const pr = g.sim.createPullRequest(REPO, { title: "Speed up the lookups", body: "Adds a cache.", author: "maintainer" });
    g.comment(pr.number, "maintainer", "/agent");
    const { comment: ask } = await g.gate(pr.number);
    await afterSecondOf(ask.created_at); // GitHub's timestamps have whole seconds: a push in the ask's own second may have come first
    g.sim.pushCommit(REPO, pr.number, "maintainer");
    await g.statusLine(pr.number, new RegExp(`gate ${ask.id} superseded: new commits were pushed at \\S+ \\([0-9a-f]{7}\\)`));

    g.comment(pr.number, "maintainer", "Postgres");
    const why = await g.reply(pr.number, "this question was superseded");
    expect(why.body).toMatch(
      /^@maintainer this question was superseded \(new commits were pushed at \S+ \([0-9a-f]{7}\)\); your answer was recorded but the agent was not re-run\./,
    );
    await g.quiet();
    expect(g.runs(pr.number, 1)).toEqual([]);
    expect(g.labels(pr.number)).not.toContain("awaiting-human");
  });

  it("commits pushed to a pull request with no open question change nothing", async () => {
    g = await start("done");
    const pr = g.sim.createPullRequest(REPO, { title: "Quiet", author: "maintainer" });
    g.comment(pr.number, "maintainer", "/agent");
    await g.run(pr.number, 0);
    g.sim.pushCommit(REPO, pr.number, "maintainer");
    await waitFor("the delivery", () => g!.sim.deliveries.find((d) => d.event === "pull_request" && d.action === "synchronize" && d.status === 200), STEP_MS);
    await g.quiet();
    expect(g.replies(pr.number)).toEqual([]);
    expect(await g.loop.app.services.statusLog.statusLines({ repo: REPO, issue: pr.number })).not.toContainEqual(expect.stringContaining("superseded"));
  });
});
