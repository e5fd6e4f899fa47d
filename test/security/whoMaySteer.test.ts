import { afterEach, describe, expect, it } from "vitest";
import { REPO, SecureLoop, waitFor } from "./support.js";

/**
 * Issue 7, "Who may steer": answering, dispatching (/agent, the dispatch label) and commanding
 * (/stop, /cancel, …) need write permission by default, or what `.github/escalation.yml` allows
 * (users, teams, a minimum permission). Bots, the App itself and everyone else are ignored without
 * any reply (no comment, no reaction) and logged at debug.
 */
describe("security: who may steer", { timeout: 60_000 }, () => {
  let loop: SecureLoop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  /** The app's reactions and comments in response to `commentIds`: there must be none. */
  function responses(issue: number, commentIds: number[]): string[] {
    const reactions = loop!
      .comments(issue)
      .filter((c) => commentIds.includes(c.id))
      .flatMap((c) => c.reactions.filter((r) => r.user === loop!.sim.botLogin).map((r) => `${r.content} on ${c.id}`));
    const replies = loop!
      .appComments(issue)
      .filter((c) => !commentIds.includes(c.id) && !c.body.startsWith("### 🤖 Escalation status") && !c.body.includes("escalation:ask:v1"));
    return [...reactions, ...replies.map((c) => c.body)];
  }

  const debugIgnored = (login: string) =>
    loop!.entries().filter((e) => e.level === 20 && e.login === login && String(e.msg).startsWith("ignored: below the minimum permission"));
  const debugLines = (msg: string, sender: string) => loop!.entries().filter((e) => e.level === 20 && e.msg === msg && e.sender === sender);

  it("by default: write permission answers; read, outsiders, bots and the App itself are ignored without a reply", async () => {
    loop = await SecureLoop.start({ mode: "ask" });
    const { issue } = await loop.dispatch("Add a cache", { ask: true });
    const ignored = [
      loop.sim.comment(REPO, issue, "reader", "Postgres"),
      loop.sim.comment(REPO, issue, "stranger", "Postgres"),
      loop.sim.comment(REPO, issue, "renovate[bot]", "Postgres"),
      loop.sim.comment(REPO, issue, loop.sim.botLogin, "Postgres"),
      loop.sim.comment(REPO, issue, "stranger", "/cancel"),
      loop.sim.comment(REPO, issue, "reader", "/retry"),
    ];
    for (const comment of ignored.filter((c) => !c.user.login.endsWith("[bot]"))) expect(await loop.handled(comment.id)).toBe("ignored: author may not steer");
    await loop.dropped("renovate[bot]");
    await loop.dropped(loop.sim.botLogin);
    await loop.quiet();
    expect(loop.runs(issue, 1)).toEqual([]);
    expect(await loop.app.services.gates.lastGate({ repo: REPO, issue })).toMatchObject({ state: "open", answers: [] });
    expect(
      responses(
        issue,
        ignored.map((c) => c.id),
      ),
    ).toEqual([]);
    expect(debugIgnored("reader").length).toBeGreaterThan(0);
    expect(debugIgnored("stranger").length).toBeGreaterThan(0);
    // Bots' comments (the App's own included) stop at the webhook boundary: a debug line, nothing queued.
    expect(debugLines("ignored webhook delivery", "renovate[bot]").length).toBeGreaterThan(0);
    expect(debugLines("ignored webhook delivery", loop.sim.botLogin).length).toBeGreaterThan(0);

    loop.sim.comment(REPO, issue, "maintainer", "SQLite");
    expect((await loop.run(issue, 1)).task).toContain("Answer from human @maintainer");
  });

  it("a repository's users, teams and minimum permission decide instead; write below the minimum is ignored", async () => {
    loop = await SecureLoop.start({ mode: "ask" });
    loop.sim.addUser("triager");
    loop.sim.setPermission(REPO, "triager", "read");
    loop.sim.addTeamMember("acme", "reviewers", "triager");
    loop.sim.addUser("lister");
    loop.sim.setPermission(REPO, "lister", "read");
    await loop.configure(["answerers:", "  users: [lister]", "  teams: [acme/reviewers]", "  minimum_permission: admin", ""].join("\n"));

    // Dispatch: write is below the minimum now, for /agent and for the label alike.
    const quiet = loop.sim.createIssue(REPO, { title: "Not by a writer", body: "x", author: "admin" }).number;
    const byComment = loop.sim.comment(REPO, quiet, "maintainer", "/agent");
    loop.sim.addLabels(REPO, quiet, "maintainer", ["agent"]);
    const byStranger = loop.sim.comment(REPO, quiet, "stranger", "/agent");
    expect(await loop.handled(byComment.id)).toBe("ignored: author may not steer");
    expect(await loop.handled(byStranger.id)).toBe("ignored: author may not steer");
    await waitFor("the label's delivery", () =>
      loop!.entries().some((e) => e.level === 20 && e.login === "maintainer" && e.msg === "ignored: below the minimum permission"),
    );
    await loop.quiet();
    expect(loop.runs(quiet)).toEqual([]);
    expect(responses(quiet, [byComment.id, byStranger.id])).toEqual([]);
    expect(debugIgnored("maintainer").length).toBeGreaterThan(0);

    // A team member (read permission) may dispatch; a listed user (read permission) may answer.
    const issue = loop.sim.createIssue(REPO, { title: "By a team member", body: "x", author: "admin" }).number;
    loop.sim.comment(REPO, issue, "triager", "/agent");
    await waitFor("the ask", () => loop!.appComments(issue).find((c) => c.body.includes("escalation:ask:v1")));
    await waitFor("the gate", () => loop!.app.services.gates.lastGate({ repo: REPO, issue }));
    const writer = loop.sim.comment(REPO, issue, "maintainer", "Postgres");
    const stop = loop.sim.comment(REPO, issue, "maintainer", "/cancel");
    expect(await loop.handled(writer.id)).toBe("ignored: author may not steer");
    expect(await loop.handled(stop.id)).toBe("ignored: author may not steer");
    await loop.quiet();
    expect(responses(issue, [writer.id, stop.id])).toEqual([]);
    expect(await loop.app.services.gates.lastGate({ repo: REPO, issue })).toMatchObject({ state: "open" });
    loop.sim.comment(REPO, issue, "lister", "SQLite");
    const next = await loop.run(issue, 1);
    expect(next.task).toContain("Answer from human @lister");
    expect(next.task).not.toContain("Postgres\n");
    // An admin meets the minimum.
    loop.sim.comment(REPO, issue, "admin", "/note the admin may steer");
    await waitFor("the admin's note", () => loop!.app.services.notes.notes({ repo: REPO, issue }).then((n) => n.length === 1));
  });
});
