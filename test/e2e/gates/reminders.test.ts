import { afterEach, describe, expect, it } from "vitest";
import { openGatesReport } from "../../../src/observe/gateView.js";
import { Gates, waitFor } from "./support.js";

const ladder = (...steps: string[]) => `reminders:\n  ladder:\n${steps.map((s) => `    - ${s}\n`).join("")}`;

async function metric(g: Gates, name: string): Promise<number> {
  const text = await (await fetch(`${g.loop.app.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

/** Issue 9, "Reminders that escalate": each step a delayed BullMQ job and a visible comment, seconds long here. */
describe("gates: the reminder ladder", { timeout: 60_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("reminds the assignees, then the fallback team, then marks the gate overdue on the status page and in metrics; an answer still resumes", async () => {
    g = await Gates.start("ask");
    await g.configure(ladder("after: 1s\n      mention: assignees", 'after: 2s\n      mention: "@acme/oncall"', "after: 3s\n      then: default"));
    const { issue, comment: ask } = await g.asked("Laddered", { assignees: ["maintainer"] });
    const askedAt = Date.parse(ask.created_at);

    const first = await g.reply(issue, "⏰ Reminder for @maintainer:");
    expect(first.body).toMatch(
      /^⏰ Reminder for @maintainer: the agent has been waiting \d+s for an answer to \*\*Which database should the cache use\?\*\* \(\[the question\]\(\S+#issuecomment-\d+\)\)\. Reply on this issue to answer it\.\n\n<!-- escalation:ladder:v1 /,
    );
    const second = await g.reply(issue, "⏰ Reminder for @acme/oncall:");
    const overdue = await g.reply(issue, "is now **overdue**");
    expect(overdue.body).toMatch(
      /^⏰ No answer by \S+: \*\*Which database should the cache use\?\*\* \(\[the question\]\(\S+\)\) is now \*\*overdue\*\*\. It has no default to take/,
    );
    // Each step at its time after the ask (GitHub's timestamps have whole seconds), in order.
    expect(Date.parse(first.created_at)).toBeGreaterThanOrEqual(askedAt + 1000);
    expect(Date.parse(second.created_at)).toBeGreaterThanOrEqual(askedAt + 2000);
    expect(Date.parse(overdue.created_at)).toBeGreaterThanOrEqual(askedAt + 3000);
    expect(g.runs(issue, 1)).toEqual([]);
    expect(g.labels(issue)).toContain("awaiting-human");

    const report = await openGatesReport(g.loop.app.services);
    expect(report.gates.find((gate) => gate.id === String(ask.id))?.overdueSince).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(report.counts.overdue).toBe(1);
    expect(await metric(g, "escalation_overdue_gates")).toBe(1);
    await g.statusLine(issue, `gate ${ask.id} is overdue: the reminder ladder ran out without an answer`);

    const answer = g.comment(issue, "maintainer", "SQLite");
    await g.resumedWith(answer.id, issue);
    expect(await metric(g, "escalation_overdue_gates")).toBe(0);
    expect(g.replies(issue)).toHaveLength(3);
  });

  it("the last step takes the defaults with the visible timeout comment and the task's ASSUMPTION; an answer before a step leaves the rest silent", async () => {
    g = await Gates.start("ask-defaults2");
    // Steps seconds apart so that, on a loaded machine, the answer still lands well before the first.
    await g.configure(ladder("after: 4s\n      mention: [assignees, answerers]", "after: 6s\n      then: default"));
    const [unanswered, answered] = await Promise.all([
      g.asked("Nobody answers", { assignees: ["maintainer"] }),
      g.asked("Answered at once", { assignees: ["maintainer"] }),
    ]);
    const answer = g.comment(answered.issue, "maintainer", "/defaults");
    await g.resumedWith(answer.id, answered.issue);
    expect(Date.now() - Date.parse(answered.comment.created_at)).toBeLessThan(4000); // else this test proves nothing

    await g.reply(unanswered.issue, "⏰ Reminder for @maintainer:");
    const notice = await g.reply(unanswered.issue, "No answer by");
    expect(notice.body).toMatch(
      /^⏰ No answer by \S+; proceeding with question 1: \*\*SQLite\*\*, question 2: \*\*1h\*\* \(the defaults\)\. The agent is told this was an assumption\./,
    );
    const { task } = await g.run(unanswered.issue, 1);
    expect(task).toMatch(/ASSUMPTION: nobody answered by \S+; the default was taken\.\n\n> SQLite\n/);

    // Every step of both ladders has come due: the answered gate's steps posted nothing.
    await g.quiet({ timers: true });
    expect(g.replies(answered.issue)).toEqual([]);
    expect(g.replies(unanswered.issue)).toHaveLength(2);
  });

  it("after a Redis wipe the rebuild reschedules the remaining steps from the ask time and posts none twice", async () => {
    g = await Gates.start("ask");
    await g.configure(ladder("after: 1s\n      mention: assignees", 'after: 6s\n      mention: "@acme/oncall"', "after: 7s\n      then: overdue"));
    const { issue, comment: ask } = await g.asked("Wiped", { assignees: ["maintainer"] });
    await g.reply(issue, "⏰ Reminder for @maintainer:");

    await g.loop.wipeRedis();
    await g.loop.restart();
    const second = await g.reply(issue, "⏰ Reminder for @acme/oncall:");
    expect(Date.parse(second.created_at)).toBeGreaterThanOrEqual(Date.parse(ask.created_at) + 6000);
    await g.reply(issue, "is now **overdue**");
    // Every step rescheduled by the rebuild has come due: none was posted twice.
    await g.quiet({ timers: true });
    expect(g.replies(issue).map((c) => /^⏰ (Reminder for \S+|No answer by)/.exec(c.body)?.[1])).toEqual([
      "Reminder for @maintainer:",
      "Reminder for @acme/oncall:",
      "No answer by",
    ]);
    const gate = await waitFor("the rebuilt gate", () => g!.loop.app.services.gates.getGate(String(ask.id)));
    expect(gate.state).toBe("open");
    expect(gate.overdueAt).toBeGreaterThanOrEqual(Date.parse(ask.created_at) + 7000);
  });
});
