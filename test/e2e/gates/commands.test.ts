import { afterEach, describe, expect, it } from "vitest";
import { alive, Gates, REPO, waitFor } from "./support.js";

/** Issue 3, "The human as a participant": slash commands, notes, stopping, closing. */
describe("gates: the human as a participant", { timeout: 60_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("/note is folded into the next spawn even with no question open, and human entries are marked as the human's", async () => {
    g = await Gates.start("ask");
    const issue = g.sim.createIssue(REPO, { title: "Notes", body: "Cache the lookups.", author: "maintainer" }).number;
    const early = g.comment(issue, "maintainer", "/note keep the public API unchanged");
    await g.reacted(early.id, issue, "+1");
    await g.statusLine(issue, "note from @maintainer recorded; it is folded into the next round");

    g.comment(issue, "maintainer", "/agent");
    const first = await g.run(issue, 0);
    expect(first.task).toMatch(/## Notes from humans on this issue\n\nNote from human @maintainer at \S+ \(\S+\):\n\n> keep the public API unchanged\n/);
    expect(first.task).not.toContain("## Questions asked so far");

    await g.gate(issue);
    const during = g.comment(issue, "admin", "/note prefer boring technology");
    await g.reacted(during.id, issue, "+1");
    // A note is not an answer: the question stays open.
    expect(g.runs(issue, 1)).toEqual([]);
    expect(g.labels(issue)).toContain("awaiting-human");

    g.comment(issue, "maintainer", "SQLite");
    const { task } = await g.run(issue, 1);
    expect(task).toMatch(/### Round 0: the agent asked /);
    expect(task).toMatch(/Answer from human @maintainer at \S+ \(\S+\), choosing option "SQLite":/);
    expect(task).toMatch(/Note from human @maintainer at \S+ \(\S+\):\n\n> keep the public API unchanged\n/);
    expect(task).toMatch(/Note from human @admin at \S+ \(\S+\):\n\n> prefer boring technology\n/);
    // Both notes in the notes section, after the agent's question.
    expect(task.indexOf("## Notes from humans")).toBeGreaterThan(task.indexOf("Which database should the cache use?"));
    expect(g.replies(issue)).toEqual([]);
  });

  it("/stop terminates the running agent, SIGTERM then SIGKILL after the grace period, and says so", async () => {
    g = await Gates.start("stubborn");
    const issue = g.dispatch("Runs forever");
    const running = await g.run(issue, 0);
    expect(alive(running.pid)).toBe(true);

    const stop = g.comment(issue, "maintainer", "/stop");
    const termAt = await waitFor("SIGTERM", () => g!.signalled(running.pid, "SIGTERM"));
    const deadAt = await waitFor("the agent gone", () => (alive(running.pid) ? undefined : Date.now()), 10_000);
    // It ignored SIGTERM, so only SIGKILL after AGENT_KILL_GRACE (1 s in the harness) ended it.
    expect(deadAt - termAt).toBeGreaterThanOrEqual(900);
    await g.statusLine(issue, /round 0: agent stopped by @maintainer with \/stop \(after \d+s\)/);
    await g.reacted(stop.id, issue, "+1");
    await g.quiet();
    expect(g.runs(issue)).toHaveLength(1); // a stopped agent is not retried
    expect(g.statusBody(issue)).not.toContain("retrying");
  });

  it("/cancel closes the open gate without a resume and removes the label", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Never mind");
    const cancel = g.comment(issue, "maintainer", "/cancel");
    await g.reacted(cancel.id, issue, "+1");
    await g.statusLine(issue, `gate ${ask.id} cancelled by @maintainer; the agent is not resumed`);
    await waitFor("label removed", () => !g!.labels(issue).includes("awaiting-human"));

    const late = g.comment(issue, "maintainer", "SQLite");
    g.comment(issue, "maintainer", "/cancel");
    await g.reply(issue, "There is no open question to cancel.");
    await g.quiet();
    expect(g.runs(issue, 1)).toEqual([]);
    expect(g.reactions(late.id, issue)).toEqual([]);
    expect(g.replies(issue)).toHaveLength(1);
  });

  it("/retry re-spawns with the history (refused while a question is open)", async () => {
    g = await Gates.start("ask");
    const { issue } = await g.asked("Again please");
    g.comment(issue, "maintainer", "/retry");
    await g.reply(issue, "A question is open: answer it (or `/cancel` it) before `/retry`.");

    g.comment(issue, "maintainer", "Postgres");
    await g.run(issue, 1);
    await waitFor("round 1 over: the label off", () => !g!.labels(issue).includes("awaiting-human"));
    expect(g.runs(issue)).toHaveLength(2);

    const retry = g.comment(issue, "admin", "/retry");
    const again = await g.run(issue, 2);
    expect(again.task).toContain('choosing option "Postgres"');
    expect(again.env.ESCALATION_ROUND).toBe("2");
    await g.reacted(retry.id, issue, "rocket");
    expect(g.runs(issue)).toHaveLength(3);
  });

  it("/status replies with the gate's state", async () => {
    g = await Gates.start("ask2");
    const { issue, comment: ask } = await g.asked("Where are we");
    g.comment(issue, "maintainer", "1. Postgres");
    await g.reply(issue, "Recorded 1 of 2 answers");
    g.comment(issue, "maintainer", "/status");
    const status = await g.reply(issue, "**Escalation status**");
    expect(status.body).toMatch(/^\*\*Escalation status\*\* · round 0 · 0 note\(s\) from humans\n/);
    expect(status.body).toMatch(new RegExp(`Open question \\(gate ${ask.id}, asked \\d+s ago by @${g.sim.botLogin.replace(/[[\]]/g, "\\$&")}\\):`));
    expect(status.body).toContain("- 1. Which database should the cache use? (options: Postgres / SQLite) — answered by @maintainer");
    expect(status.body).toContain("- 2. Should old entries expire? — waiting");
    expect(status.body).toContain("Who can answer: anyone with write access.");
    expect(g.runs(issue, 1)).toEqual([]);
  });

  it("an unknown command gets the help reply once per person", async () => {
    g = await Gates.start("ask");
    const issue = g.sim.createIssue(REPO, { title: "Typos", body: "", author: "maintainer" }).number;
    g.comment(issue, "maintainer", "/frobnicate now");
    const help = await g.reply(issue, "Unknown command `/frobnicate`.");
    expect(help.body).toContain("**Commands**");
    expect(help.body).toContain("`/note TEXT`");
    g.comment(issue, "maintainer", "/frobnicate again");
    g.comment(issue, "maintainer", "/whatever");
    g.comment(issue, "admin", "/dance");
    await g.reply(issue, "Unknown command `/dance`.");
    await g.quiet();
    expect(g.replies(issue).map((c) => c.body.split("\n")[0])).toEqual(["Unknown command `/frobnicate`.", "Unknown command `/dance`."]);
    expect(g.runs(issue)).toEqual([]);
  });

  it("commands from users below write permission are ignored without a reply", async () => {
    g = await Gates.start("ask");
    g.sim.addUser("triager");
    g.sim.setPermission(REPO, "triager", "triage");
    const { issue, comment: ask } = await g.asked("Outsiders");
    const ignored = [
      "/status",
      "/note sneak this in",
      "/cancel",
      "/defaults",
      "/stop",
      "/retry",
      "/agent",
      "/reopen SQLite",
      "/answer 1",
      "/frobnicate",
      "/help",
    ];
    const posted = ignored.flatMap((body) => [g!.comment(issue, "reader", body), g!.comment(issue, "triager", body)]);
    await g.quiet();
    expect(g.replies(issue)).toEqual([]);
    for (const c of posted) expect(g.reactions(c.id, issue)).toEqual([]);
    expect(g.statusBody(issue)).not.toMatch(/reader|triager/);
    expect(g.labels(issue)).toContain("awaiting-human");
    expect(g.runs(issue)).toHaveLength(1);
    expect((await g.loop.app.services.gates.getGate(String(ask.id)))?.state).toBe("open");

    g.comment(issue, "maintainer", "Postgres");
    const { task } = await g.run(issue, 1);
    expect(task).not.toContain("sneak this in");
    expect(task).not.toContain("Notes from humans");
  });

  it("closing the issue cancels its open gate; reopening resumes nothing", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Closed early");
    g.sim.closeIssue(REPO, issue, "maintainer");
    await g.statusLine(issue, `issue closed by @maintainer: gate ${ask.id} cancelled, no resume`);
    await waitFor("label removed", () => !g!.labels(issue).includes("awaiting-human"));

    g.sim.reopenIssue(REPO, issue, "maintainer");
    const late = g.comment(issue, "maintainer", "SQLite");
    await g.quiet();
    expect(g.runs(issue)).toHaveLength(1);
    expect(g.reactions(late.id, issue)).toEqual([]);
    expect(g.labels(issue)).not.toContain("awaiting-human");
    expect((await g.loop.app.services.gates.getGate(String(ask.id)))?.state).toBe("cancelled");
  });

  it("an answer still queued when the issue is closed starts no agent", async () => {
    // One agent slot, held by a sleeping agent on another issue, keeps the resume queued.
    g = await Gates.start("ask", { AGENT_CONCURRENCY: "1" });
    const { issue, comment: ask } = await g.asked("Closed while queued");
    const busy = g.dispatch("Long job", { mode: "sleep" });
    await g.run(busy, 0);
    g.comment(issue, "maintainer", "SQLite");
    await waitFor("the answer recorded", async () => (await g!.loop.app.services.gates.getGate(String(ask.id)))?.state === "answered");
    g.sim.closeIssue(REPO, issue, "maintainer");
    await waitFor("the close seen", async () => (await g!.loop.app.services.issues.getIssue({ repo: REPO, issue }))?.state === "closed");
    g.comment(busy, "maintainer", "/stop");
    await g.statusLine(issue, "the issue is closed: the queued round was not started");
    expect(g.runs(issue, 1)).toEqual([]);
  });

  it("closing the issue stops its running agent", async () => {
    g = await Gates.start("sleep");
    const issue = g.dispatch("Closed while running");
    const running = await g.run(issue, 0);
    g.sim.closeIssue(REPO, issue, "admin");
    await waitFor("SIGTERM", () => g!.signalled(running.pid, "SIGTERM"));
    await waitFor("the agent gone", () => !alive(running.pid));
    await g.statusLine(issue, /round 0: agent stopped because @admin closed the issue \(after \d+s\)/);
    g.sim.reopenIssue(REPO, issue, "admin");
    await g.quiet();
    expect(g.runs(issue)).toHaveLength(1);
  });
});
