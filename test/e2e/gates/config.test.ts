import { afterEach, describe, expect, it } from "vitest";
import { Gates, REPO, waitFor } from "./support.js";

/** Issue 3, "Per-repository configuration": `.github/escalation.yml` through the simulator's contents API. */
describe("gates: per-repository configuration", { timeout: 60_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it(".github/escalation.yml changes the labels, who may answer (users, teams, minimum permission) and the round limit", async () => {
    g = await Gates.start("ask2");
    g.sim.addUser("triager");
    g.sim.setPermission(REPO, "triager", "read");
    g.sim.addTeamMember("acme", "reviewers", "triager");
    await g.configure(
      [
        "labels:",
        "  awaiting: needs-human",
        "  dispatch: run-agent",
        "answerers:",
        "  users: [reader]",
        "  teams: [acme/reviewers]",
        "  minimum_permission: admin",
        "max_rounds: 1",
        "",
      ].join("\n"),
    );
    const issue = g.sim.createIssue(REPO, { title: "Configured", body: "", author: "maintainer" }).number;
    const other = g.sim.createIssue(REPO, { title: "Default label", body: "", author: "maintainer" }).number;
    g.sim.addLabels(REPO, other, "admin", ["agent"]);
    g.sim.addLabels(REPO, issue, "admin", ["run-agent"]);

    await g.gate(issue, { label: "needs-human" });
    expect(g.labels(issue)).not.toContain("awaiting-human");
    expect(g.runs(other)).toEqual([]);

    // Write access is below the configured minimum (admin); a listed user and a team member may answer.
    const ignored = g.comment(issue, "maintainer", "1. Postgres");
    await g.quiet();
    expect(g.replies(issue)).toEqual([]);
    expect(g.reactions(ignored.id, issue)).toEqual([]);
    g.comment(issue, "reader", "1. SQLite");
    await g.reply(issue, "Recorded 1 of 2 answers");
    g.comment(issue, "triager", "/answer 2 yes");

    // The next round would pass max_rounds: 1.
    const limit = await g.gate(issue, { count: 2, label: "needs-human" });
    expect(limit.ask.kind).toBe("rounds_exhausted");
    expect(limit.ask.questions[0]!.text).toBe("The agent has used 1 rounds on this issue, the limit. Run more rounds?");
    expect(g.runs(issue, 1)).toEqual([]);

    g.comment(issue, "admin", "retry");
    const { task } = await g.run(issue, 1);
    expect(task).toMatch(/Answer from human @reader at \S+ \(\S+\), choosing option "SQLite":/);
    expect(task).toMatch(/Answer from human @triager at \S+ \(\S+\):\n\n> yes\n/);
    expect(task).not.toContain("@maintainer at");
    await waitFor("needs-human removed", () => !g!.labels(issue).includes("needs-human"));
    expect(g.runs(other)).toEqual([]);
  });

  it("an invalid file gets exactly one comment naming the key, and the defaults apply; it can never set the agent's command", async () => {
    g = await Gates.start("ask");
    g.sim.addRepo("acme/gadgets");
    g.sim.setPermission("acme/gadgets", "maintainer", "write");
    await g.configure(["command: [sh, -c, 'echo pwned']", "labels:", "  awaiting: hacked", "answerers:", "  users: [reader]", ""].join("\n"));
    await g.configure("max_rounds: 0\n", "acme/gadgets");

    const { issue } = await g.asked("Bad config");
    const problem = await g.reply(issue, "⚠️ `.github/escalation.yml` is invalid");
    expect(problem.body).toMatch(/so the defaults apply until it is fixed: .*Unrecognized key: "command"/);
    expect(g.labels(issue)).not.toContain("hacked");

    // The defaults apply: a reader may not answer, a maintainer may.
    g.comment(issue, "reader", "Postgres");
    await g.quiet();
    expect(g.runs(issue, 1)).toEqual([]);
    g.comment(issue, "maintainer", "SQLite");
    const next = await g.run(issue, 1);
    expect(next.argv.slice(1)).toEqual(["1", "ask"]);
    expect(next.task).toContain("Answer from human @maintainer");

    const gadgets = g.dispatch("Other repository", { repo: "acme/gadgets" });
    await g.gate(gadgets, { repo: "acme/gadgets" });
    const other = await g.reply(gadgets, "⚠️ `.github/escalation.yml` is invalid", "acme/gadgets");
    expect(other.body).toMatch(/max_rounds: .*1/);
    expect(other.body).not.toContain("command");

    await g.quiet();
    // Many events later, still one comment per problem.
    expect(g.replies(issue).map((c) => c.id)).toEqual([problem.id]);
    expect(g.replies(gadgets, "acme/gadgets").map((c) => c.id)).toEqual([other.id]);
  });
});
