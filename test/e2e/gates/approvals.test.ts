import { afterEach, describe, expect, it } from "vitest";
import { openGatesReport } from "../../../src/observe/gateView.js";
import { renderAskComment } from "../../../src/protocol/ask.js";
import { Gates, REPO, waitFor } from "./support.js";

/** Issue 9, "Approvals with a policy": M of N approvals from distinct allowed humans. */
describe("gates: approvals", () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("needs two approvals from distinct people: a repeated approval and a redelivery count once; the agent resumes once with who approved", async () => {
    g = await Gates.start("approval");
    const { issue, comment: ask, ask: parsed } = await g.asked("Ship it");
    expect(parsed).toMatchObject({ kind: "approval", approvers: 2 });
    expect(ask.body).toContain("### 🔐 The agent asks for approval");

    const first = g.comment(issue, "maintainer", "LGTM!");
    const ack = await g.reply(issue, "Approvals 1/2");
    expect(ack.body).toBe("🗳️ @maintainer approved. Approvals 1/2: @maintainer. Waiting for 1 more approval.");

    // The same delivery again (GitHub retries), and the same person approving in a new comment.
    const delivery = g.sim.deliveries.filter((d) => d.event === "issue_comment" && d.action === "created").at(-1)!;
    expect(await g.sim.redeliver(delivery.id)).toBeLessThan(300);
    g.comment(issue, "maintainer", "Approved.");
    const repeated = await g.reply(issue, "already counted");
    expect(repeated.body).toBe("🗳️ @maintainer your approval was already counted; it counts once. Approvals 1/2: @maintainer. Waiting for 1 more approval.");
    await g.quiet();
    expect(g.runs(issue, 1)).toEqual([]);
    expect(g.replies(issue)).toHaveLength(2);
    expect(g.labels(issue)).toContain("awaiting-human");

    const second = g.comment(issue, "admin", "approve, the rollout plan is fine");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("### Round 0: the agent (asking for approval) asked");
    expect(task).toContain("**Q1. Deploy v2 to production?**");
    expect(task).toContain("APPROVED: 2 of 2 required approvals (policy any-deny). The votes, each from a distinct human:");
    expect(task).toMatch(new RegExp(`- @maintainer approved at \\S+ \\(${first.html_url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)\n`));
    expect(task).toContain(`- @admin approved at`);
    expect(task).toContain(", with the note:\n\n> the rollout plan is fine");
    expect(task).toMatch(/note with the vote of @admin: @admin, \S+, sha256 [0-9a-f]{64}/);
    const resolved = await g.reply(issue, "✅ Approved.");
    expect(resolved.body).toBe("✅ Approved. Approvals 2/2: @maintainer, @admin. The agent resumes with the approval.");
    await g.resumedWith(second.id, issue);
    // The deciding vote delivered again resumes nothing more.
    const deciding = g.sim.deliveries.filter((d) => d.event === "issue_comment" && d.action === "created").at(-1)!;
    expect(await g.sim.redeliver(deciding.id)).toBeLessThan(300);
    await waitFor("the label off once the round ended", () => !g!.labels(issue).includes("awaiting-human"));
    await g.quiet();
    expect(g.runs(issue, 1)).toHaveLength(1);
    expect(g.replies(issue).filter((c) => c.body.startsWith("✅"))).toHaveLength(1);
    const gate = await g.loop.app.services.gates.getGate(String(ask.id));
    expect(gate?.answers[0]).toMatchObject({ text: "approved", by: "admin", approval: { outcome: "approved", required: 2, policy: "any-deny" } });
    expect(gate?.answers[0]?.approval?.votes.map((v) => v.login)).toEqual(["maintainer", "admin"]);
  });

  it("any-deny (the default): one denial resolves the gate at once, and the agent resumes with who denied and why", async () => {
    g = await Gates.start("approval");
    const { issue } = await g.asked("Risky change");
    g.comment(issue, "maintainer", "yes");
    await g.reply(issue, "Approvals 1/2");
    g.comment(issue, "admin", "**No** - not before the release freeze");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("DENIED: 1 of 2 required approvals (policy any-deny).");
    expect(task).toContain("- @admin denied at");
    expect(task).toContain(", with the note:\n\n> not before the release freeze");
    const denied = await g.reply(issue, "⛔ Denied");
    expect(denied.body).toBe(
      "⛔ Denied by @admin (`not before the release freeze`) (policy any-deny: a single denial decides). Approvals 1/2: @maintainer. The agent resumes with the denial.",
    );

    // A vote after the outcome is not counted, and the voter is told so.
    g.comment(issue, "maintainer", "approve");
    const late = await g.reply(issue, "already resolved");
    expect(late.body).toContain("@maintainer this approval was already resolved (by the vote of @admin); your vote was not counted.");
    await g.quiet();
    expect(g.runs(issue)).toHaveLength(2);
  });

  it("the repository's config sets the count and the majority policy: denials must reach the same count", async () => {
    g = await Gates.start("approval-repo");
    g.sim.addUser("carol");
    g.sim.setPermission(REPO, "carol", "write");
    await g.configure("approvals:\n  approvers: 2\n  policy: majority\n");
    const { issue, ask } = await g.asked("Repository policy");
    expect(ask.approvers).toBeUndefined();
    g.comment(issue, "maintainer", "deny");
    const ack = await g.reply(issue, "Denials 1/2");
    expect(ack.body).toBe("🗳️ @maintainer denied. Approvals 0/2: none yet · Denials 1/2: @maintainer. Waiting for 2 more approvals.");
    g.comment(issue, "admin", "👍");
    await g.reply(issue, "Approvals 1/2: @admin");
    expect(g.runs(issue, 1)).toEqual([]);
    g.comment(issue, "carol", "/status");
    const status = await g.reply(issue, "**Escalation status**");
    expect(status.body).toContain("- Deploy v2 to production? — Approvals 1/2: @admin · Denials 1/2: @maintainer (policy majority)");
    // The gate recorded the repository's rule when it opened: the status page's tally says the same.
    const [open] = (await openGatesReport(g.loop.app.services)).gates;
    expect(open?.approval).toMatchObject({
      required: 2,
      policy: "majority",
      recorded: true,
      summary: "1 of 2 approvals: @admin; 1 of 2 denials: @maintainer; waiting for 1 more from anyone with write access",
    });
    g.comment(issue, "carol", "y");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("APPROVED: 2 of 2 required approvals (policy majority).");
    expect(task).toContain("- @maintainer denied at");
  });

  it("the asking account, read-only users and bots never count; a comment that casts no vote gets one hint", async () => {
    g = await Gates.start("done", { AGENT_LOGINS: "deployer" });
    g.sim.addUser("deployer");
    g.sim.setPermission(REPO, "deployer", "write");
    const issue = g.sim.createIssue(REPO, { title: "Agent account asks", body: "Deploy.", author: "maintainer" }).number;
    g.comment(
      issue,
      "deployer",
      renderAskComment({ v: 1, id: "approval-by-agent-account", kind: "approval", round: 0, approvers: 1, questions: [{ text: "Deploy?", options: [] }] }),
    );
    await g.gate(issue);

    g.comment(issue, "deployer", "approve");
    g.comment(issue, "reader", "approve");
    g.comment(issue, "renovate[bot]", "lgtm");
    g.comment(issue, "maintainer", "What exactly does this deploy?");
    const hint = await g.reply(issue, "was not counted as a vote");
    expect(hint.body).toContain("@maintainer your comment was not counted as a vote. Reply `approve`");
    g.comment(issue, "maintainer", "Which region?");
    await g.quiet();
    expect(g.runs(issue, 1)).toEqual([]);
    expect(g.replies(issue)).toHaveLength(1);

    g.comment(issue, "maintainer", "approve");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("APPROVED: 1 of 1 required approvals");
    expect(task).not.toContain("@deployer approved");
    expect(task).not.toContain("@reader");
  });

  it("/reopen does not overturn an approval", async () => {
    g = await Gates.start("approval");
    const { issue } = await g.asked("No override");
    g.comment(issue, "maintainer", "deny");
    await g.run(issue, 1);
    g.comment(issue, "admin", "/reopen approve");
    const refused = await g.reply(issue, "An approval is not corrected with `/reopen`");
    expect(refused.body).toContain("`/retry`");
    await g.quiet();
    expect(g.runs(issue, 2)).toEqual([]);
  });

  it("after a Redis wipe the gate and its tally are rebuilt from the issue's comments; the next approval resolves it once", async () => {
    g = await Gates.start("approval", { RECONCILE_INTERVAL: "off" });
    const { issue, comment: ask } = await g.asked("Rebuilt tally");
    g.comment(issue, "maintainer", "approve");
    await g.reply(issue, "Approvals 1/2");
    await g.loop.wipeRedis();
    expect(await g.loop.app.services.gates.getGate(String(ask.id))).toBeUndefined();

    // The issue is labelled awaiting-human but Redis knows no gate: this reply rebuilds the issue,
    // replaying the ask and every vote after it, this one included.
    g.comment(issue, "admin", "lgtm");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("APPROVED: 2 of 2 required approvals");
    expect(task).toContain("- @maintainer approved at");
    expect(task).toContain("- @admin approved at");
    await g.quiet();
    expect(g.runs(issue, 1)).toHaveLength(1);
    const gate = await g.loop.app.services.gates.getGate(String(ask.id));
    expect(gate?.answers[0]?.approval?.votes.map((v) => v.login)).toEqual(["maintainer", "admin"]);
  });

  it("a resolved approval whose round ended is restored from the issue after a wipe, with its votes, and not resumed again", async () => {
    g = await Gates.start("approval", { RECONCILE_INTERVAL: "off" });
    const { issue, comment: ask } = await g.asked("Restored outcome");
    g.comment(issue, "maintainer", "approve");
    await g.reply(issue, "Approvals 1/2");
    g.comment(issue, "admin", "deny: wait for the security review");
    await g.run(issue, 1);
    // The happy path leaves no status comment: the label coming off records that the round ended.
    await waitFor("the label off", () => !g!.labels(issue).includes("awaiting-human"));
    await g.loop.wipeRedis();
    await g.loop.restart();
    await g.quiet();
    expect(g.runs(issue, 1)).toHaveLength(1);
    const gate = await g.loop.app.services.gates.getGate(String(ask.id));
    expect(gate?.state).toBe("resumed");
    expect(gate?.answers[0]).toMatchObject({
      text: "denied",
      note: "wait for the security review",
      by: "admin",
      approval: { outcome: "denied", required: 2, policy: "any-deny" },
    });
    expect(gate?.answers[0]?.approval?.votes.map((v) => `${v.login}:${v.vote}`)).toEqual(["maintainer:approve", "admin:deny"]);
  });
});
