import { afterEach, describe, expect, it } from "vitest";
import { parseStatusComment } from "../../../src/status/statusComment.js";
import { sealFor } from "../../support/seal.js";
import { WEBHOOK_SECRET } from "../../support/harness.js";
import { Gates, REPO, waitFor } from "./support.js";

/**
 * Issue 15, "Nothing the agent can do with its GitHub token decides for a human": the agent's token
 * is an installation token acting as the App's bot, which may edit or delete any comment. A human's
 * answer edited or deleted by anyone but its author stays that human's answer, live and in a rebuild.
 */
describe("gates: a human's answer changed by someone else", () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  const asTheApp = (gates: Gates, method: "PATCH" | "DELETE", path: string, body?: unknown) => gates.asTheApp(method, path, body);
  const commentPath = (id: number) => `/repos/${REPO}/issues/comments/${id}`;
  const statusRecord = (gates: Gates, issue: number) => JSON.stringify(parseStatusComment(gates.statusBody(issue), sealFor(WEBHOOK_SECRET, issue)) ?? {});
  const gateOf = (gates: Gates, id: number) => gates.loop.app.services.gates.getGate(String(id));

  it("the bot edits an answer to choose another option: the round and later rounds get the human's words, also after a Redis wipe", async () => {
    g = await Gates.start("ask-every");
    const { issue, comment: ask } = await g.asked("Edited by the bot");
    const reply = g.comment(issue, "maintainer", "Postgres, with the human's own words");
    await waitFor("the answer recorded", async () => (await gateOf(g!, ask.id))?.state !== "open" || undefined);
    expect(await asTheApp(g, "PATCH", commentPath(reply.id), { body: "SQLite, as the bot would have it" })).toBe(200);
    await g.statusLine(issue, `⚠️ @${g.sim.botLogin} edited the answer of @maintainer; the app keeps @maintainer's own words. Only @maintainer can change it.`);

    const round1 = (await g.run(issue, 1)).task;
    expect(round1).toContain("Postgres, with the human's own words");
    expect(round1).not.toContain("as the bot would have it");
    expect((await gateOf(g, ask.id))?.answers[0]).toMatchObject({ option: "Postgres", by: "maintainer" });
    await g.gate(issue, { count: 2 });
    await waitFor("the status record with the human's answer", () => statusRecord(g!, issue).includes("human's own words") || undefined);
    expect(statusRecord(g, issue)).not.toContain("as the bot would have it");

    await g.loop.wipeRedis();
    await g.loop.restart();
    await waitFor("the first gate rebuilt", () => gateOf(g!, ask.id));
    expect((await gateOf(g, ask.id))?.answers[0]).toMatchObject({ option: "Postgres", text: "Postgres, with the human's own words" });
    g.comment(issue, "maintainer", "SQLite");
    const round2 = (await g.run(issue, 2)).task;
    expect(round2).toContain("Postgres, with the human's own words");
    expect(round2).not.toContain("as the bot would have it");
  });

  it("an answer the bot edited while the app was down and Redis was wiped: the rebuild takes its author's own version from the edit history", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Edited while down");
    await g.loop.restart({
      whileDown: async () => {
        const reply = g!.comment(issue, "maintainer", "Postgres, as the maintainer wrote it");
        expect(await asTheApp(g!, "PATCH", commentPath(reply.id), { body: "SQLite, as the bot rewrote it" })).toBe(200);
        await g!.loop.wipeRedis();
      },
    });
    const { task } = await g.run(issue, 1);
    expect(task).toContain("Postgres, as the maintainer wrote it");
    expect(task).not.toContain("as the bot rewrote it");
    expect((await gateOf(g, ask.id))?.answers[0]).toMatchObject({ option: "Postgres", by: "maintainer" });
    // The rebuild asked GitHub's GraphQL API for the reply's history (once per rebuild of the issue).
    const graphqlCalls = g.sim.calls.filter((c) => c.route === "POST /graphql");
    expect(graphqlCalls.length).toBeGreaterThan(0);
    expect(graphqlCalls.every((c) => c.status === 200)).toBe(true);
  });

  it("an answer the bot edited and whose original it deleted from the edit history, while the app was down: the rebuild keeps waiting and says so", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("History deleted while down");
    let replyId = 0;
    await g.loop.restart({
      whileDown: async () => {
        const reply = g!.comment(issue, "maintainer", "Postgres, as the maintainer wrote it");
        replyId = reply.id;
        expect(await asTheApp(g!, "PATCH", commentPath(reply.id), { body: "SQLite, as the bot rewrote it" })).toBe(200);
        g!.sim.deleteRevision(REPO, reply.id, g!.sim.botLogin, 0);
        await g!.loop.wipeRedis();
      },
    });
    await g.statusLine(issue, `⚠️ @${g.sim.botLogin.replace(/\[bot\]$/, "")} edited the reply of @maintainer`);
    expect(g.statusBody(issue)).toContain("its author's last version was deleted from its edit history: it is not taken as @maintainer's answer");
    expect(g.statusBody(issue)).toContain(`#issuecomment-${replyId}`);
    const gate = await gateOf(g, ask.id);
    expect(gate).toMatchObject({ state: "open", answers: [] });
    expect(g.runs(issue, 1)).toEqual([]);
    expect(g.labels(issue)).toContain("awaiting-human");

    // The maintainer answers again: that is taken.
    g.comment(issue, "maintainer", "Postgres, again");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("Postgres, again");
    expect(task).not.toContain("as the bot rewrote it");
  });

  it("the bot deletes an answer before its round: not withdrawn, the round resumes with the human's answer", async () => {
    // One agent slot, held by a sleeping agent on another issue, keeps the resume queued.
    g = await Gates.start("ask", { AGENT_CONCURRENCY: "1" });
    const { issue, comment: ask } = await g.asked("Deleted by the bot in time");
    const busy = g.dispatch("Long job", { mode: "sleep" });
    await g.run(busy, 0);
    const reply = g.comment(issue, "maintainer", "Postgres, please, said the maintainer");
    await waitFor("the answer recorded", async () => (await gateOf(g!, ask.id))?.state === "answered" || undefined);
    expect(await asTheApp(g, "DELETE", commentPath(reply.id))).toBe(204);
    await g.statusLine(issue, `⚠️ @${g.sim.botLogin} deleted the answer of @maintainer; the app keeps @maintainer's own words.`);
    expect(await gateOf(g, ask.id)).toMatchObject({ state: "answered", answers: [{ option: "Postgres", deletedBy: g.sim.botLogin }] });
    expect((await gateOf(g, ask.id))?.withdrawn).toBeUndefined();

    g.comment(busy, "maintainer", "/stop");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("Postgres, please, said the maintainer");
    expect(task).not.toContain("was withdrawn");
  });

  it("the bot deletes an answer after its round, and a /note: later rounds still get both, and a rebuild after a Redis wipe keeps them", async () => {
    g = await Gates.start("ask-every");
    const { issue, comment: firstAsk } = await g.asked("Deleted by the bot later");
    const note = g.comment(issue, "admin", "/note keep the admin's public API");
    await g.reacted(note.id, issue, "+1");
    const reply = g.comment(issue, "maintainer", "Postgres, the maintainer's choice");
    expect((await g.run(issue, 1)).task).toContain("the maintainer's choice");
    await g.gate(issue, { count: 2 });

    expect(await asTheApp(g, "DELETE", commentPath(reply.id))).toBe(204);
    expect(await asTheApp(g, "DELETE", commentPath(note.id))).toBe(204);
    await g.statusLine(issue, `⚠️ @${g.sim.botLogin} deleted the answer of @maintainer`);
    await g.statusLine(issue, `⚠️ @${g.sim.botLogin} deleted the note of @admin`);
    const marked = (record: string) => record.split(`"deletedBy":"${g!.sim.botLogin}"`).length - 1;
    await waitFor("the status record marks the answer and the note kept", () => marked(statusRecord(g!, issue)) === 2 || undefined);

    await g.loop.wipeRedis();
    await g.loop.restart();
    await waitFor("the first gate rebuilt", () => gateOf(g!, firstAsk.id));
    expect((await gateOf(g, firstAsk.id))?.answers).toMatchObject([{ option: "Postgres", text: "Postgres, the maintainer's choice" }]);
    expect((await g.loop.app.services.notes.notes({ repo: REPO, issue })).map((n) => n.text)).toEqual(["keep the admin's public API"]);
    g.comment(issue, "maintainer", "SQLite");
    const round2 = (await g.run(issue, 2)).task;
    expect(round2).toContain("the maintainer's choice");
    expect(round2).toContain("> keep the admin's public API");
    expect(round2).not.toContain("was withdrawn");
  });
});
