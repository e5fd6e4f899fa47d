import { afterEach, describe, expect, it } from "vitest";
import { parseStatusComment } from "../../../src/status/statusComment.js";
import { Gates, REPO, waitFor } from "./support.js";
import { sealFor } from "../../support/seal.js";
import { WEBHOOK_SECRET } from "../../support/harness.js";

/** Issue 3, "Defaults and timeouts": real delayed BullMQ jobs on the real Redis, seconds long. */
describe("gates: defaults and timeouts", { timeout: 60_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("at the timeout a default is taken with a visible comment, the next task marks it an ASSUMPTION, and /reopen re-spawns with the correction", async () => {
    g = await Gates.start("ask-default");
    const { issue, comment: ask } = await g.asked("Unattended");
    expect(ask.body).toContain("SQLite _(default)_");

    const notice = await g.reply(issue, "No answer by");
    const [, by] = /⏰ No answer by (\S+); proceeding with \*\*SQLite\*\* \(the default\)\./.exec(notice.body) ?? [];
    expect(by).toBeDefined();
    // Not before the 2 s timeout (GitHub's timestamps have whole seconds, as do both of these).
    expect(Date.parse(by!)).toBeGreaterThanOrEqual(Date.parse(ask.created_at) + 2000);
    expect(notice.body).toContain("`/reopen <your answer>`");

    const assumed = await g.run(issue, 1);
    expect(assumed.task).toMatch(/Options: 1\. Postgres; 2\. SQLite\nASSUMPTION: nobody answered by \S+; the default was taken\.\n\n> SQLite\n/);
    expect(assumed.task).not.toContain("Answer from human");
    // /metrics counts that round's latency under the trigger that started it: the default, not an answer.
    const spawnCounts = async () =>
      (await (await fetch(`${g!.loop.app.url}/metrics`)).text()).match(/^escalation_trigger_to_spawn_seconds_count\{trigger="\w+"\} \d+$/gm)?.join("\n");
    await waitFor("the default's round in /metrics", async () => (await spawnCounts())?.includes('trigger="default"} 1'));
    expect(await spawnCounts()).toBe(
      'escalation_trigger_to_spawn_seconds_count{trigger="dispatch"} 1\nescalation_trigger_to_spawn_seconds_count{trigger="default"} 1',
    );
    await g.statusLine(issue, `round 1: agent started with the defaults taken at timeout to gate ${ask.id}`);
    await g.statusLine(issue, "round 1: agent finished");
    // The status comment's hidden state (what a rebuild reads) records the gate as taken by the app.
    // A new status comment gets its record in a second write, once its id is known (README, "Signed state").
    const recorded = await waitFor("the status comment's record of the gate", () =>
      parseStatusComment(g!.statusBody(issue), sealFor(WEBHOOK_SECRET, issue))?.gates.find((gate) => gate.id === String(ask.id)),
    );
    expect(recorded).toMatchObject({ answeredBy: "escalation", answers: [{ text: "SQLite", source: "default" }] });

    const correction = g.comment(issue, "maintainer", "/reopen Postgres, we already run it");
    const corrected = await g.run(issue, 2);
    expect(corrected.task).toContain(`Correction by @maintainer of the earlier answer to gate ${ask.id}.`);
    expect(corrected.task).toMatch(/Answer from human @maintainer at \S+ \(\S+\), choosing option "Postgres":\n\n> Postgres, we already run it\n/);
    // The history keeps the assumption that was corrected.
    expect(corrected.task).toContain("ASSUMPTION: nobody answered by");
    await g.statusLine(issue, `@maintainer reopened gate ${ask.id} with a correction`);
    await g.resumedWith(correction.id, issue);
    expect(g.replies(issue)).toHaveLength(1);
  });

  it("several questions: a gate resumes once the humans' answers and the defaults taken at the timeout cover them all", async () => {
    g = await Gates.start("ask2-default");
    const { issue, comment: ask } = await g.asked("Half answered");
    // Whichever comes first, the human's answer to 1 or the default for 2, records a part and says what remains.
    g.comment(issue, "maintainer", "1. Postgres");
    const partial = await g.reply(issue, "Recorded 1 of 2 answers. Still open: ");
    expect(partial.body).toMatch(/Still open: (\*\*2\.\*\* Should old entries expire\?|\*\*1\.\*\* Which database should the cache use\?)\. Reply with/);

    const notice = await g.reply(issue, "No answer by");
    expect(notice.body).toMatch(/proceeding with question 2: \*\*yes\*\* \(the default\)/);
    expect(Date.parse(/No answer by (\S+);/.exec(notice.body)![1]!)).toBeGreaterThanOrEqual(Date.parse(ask.created_at) + 2000);
    const { task, startedAt } = await g.run(issue, 1);
    // The partial answer did not resume it; the default did, at the timeout.
    expect(startedAt).toBeGreaterThanOrEqual(Date.parse(ask.created_at) + 2000);
    expect(task).toMatch(/Answer from human @maintainer at \S+ \(\S+\), choosing option "Postgres":\n\n> Postgres\n/);
    expect(task).toMatch(/\*\*Q2\. Should old entries expire\?\*\*\nASSUMPTION: nobody answered by \S+; the default was taken\.\n\n> yes\n/);
    await g.quiet();
    expect(g.runs(issue)).toHaveLength(2);
  });

  it("a timeout without a default posts one reminder mentioning the assignees (or the configured answerers) and the gate stays open", async () => {
    g = await Gates.start("ask-nodefault");
    // No assignees on the second issue: the configured answerers are named, and the file's default timeout applies to its ask.
    await g.configure("answerers:\n  users: [admin]\ntimeout: 1s\n");
    const [assigned, unassigned] = await Promise.all([g.asked("Assigned", { assignees: ["maintainer"] }), g.asked("Unassigned", { mode: "ask" })]);
    expect(g.sim.issue(REPO, assigned.issue).assignees).toEqual(["maintainer"]);

    const toAssignee = await g.reply(assigned.issue, "⏰ Reminder");
    expect(toAssignee.body).toMatch(
      /^⏰ Reminder for @maintainer: the agent is still waiting for an answer to \*\*Which region should we deploy to\?\*\* \(asked \d+s ago, no default\)\. Nothing proceeds until someone answers\.$/,
    );
    const toAnswerer = await g.reply(unassigned.issue, "⏰ Reminder");
    expect(toAnswerer.body).toContain("⏰ Reminder for @admin: the agent is still waiting for an answer to **Which database should the cache use?**");
    expect(toAnswerer.body).not.toContain("@maintainer");

    // Every timer has fired: a second reminder would have been posted by now.
    await g.quiet({ timers: true });
    for (const { issue } of [assigned, unassigned]) {
      expect(g.replies(issue)).toHaveLength(1);
      expect(g.runs(issue, 1)).toEqual([]);
      expect(g.labels(issue)).toContain("awaiting-human");
    }
    await g.statusLine(assigned.issue, "timed out without a default for 1 question(s); reminder posted"); // rendered STATUS_DEBOUNCE after the line

    // Still open: a human's answer resumes it.
    g.comment(assigned.issue, "maintainer", "eu-west-1");
    const { task } = await g.run(assigned.issue, 1);
    expect(task).toMatch(/\*\*Q1\. Which region should we deploy to\?\*\*\nAnswer from human @maintainer at \S+ \(\S+\):\n\n> eu-west-1\n/);
  });

  it("/defaults accepts every default of the open gate at once, as the human's choice", async () => {
    g = await Gates.start("ask-defaults2");
    const [withDefaults, without] = await Promise.all([g.asked("Two defaults"), g.asked("No defaults", { mode: "ask" })]);

    const accept = g.comment(withDefaults.issue, "maintainer", "/defaults");
    const { task } = await g.run(withDefaults.issue, 1);
    expect(task).toMatch(
      /Answer from human @maintainer at \S+ \(\S+\), choosing option "SQLite":\n\n> SQLite\n\nNote that came with the choice:\n\n> accepted the default with \/defaults\n/,
    );
    expect(task).toMatch(/\*\*Q2\. How long should entries live\?\*\*\nAnswer from human @maintainer at \S+ \(\S+\):\n\n> 1h\n/);
    expect(task).not.toContain("ASSUMPTION");
    await g.resumedWith(accept.id, withDefaults.issue);

    g.comment(without.issue, "maintainer", "/defaults");
    await g.reply(without.issue, "@maintainer the open question has no defaults left to accept; please answer it.");
    await g.quiet();
    expect(g.runs(without.issue, 1)).toEqual([]);
    expect(g.labels(without.issue)).toContain("awaiting-human");
    expect(g.replies(withDefaults.issue)).toEqual([]);
  });
});
