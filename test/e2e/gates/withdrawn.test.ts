import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { parseStatusComment } from "../../../src/status/statusComment.js";
import { jobIds } from "../../../src/queueNames.js";
import { spawnState } from "../../../src/queue/spawnQueue.js";
import { Gates, REPO, waitFor } from "./support.js";
import { sealFor } from "../../support/seal.js";
import { WEBHOOK_SECRET } from "../../support/harness.js";

/** Issue 13, "Deleted and edited answers": a deleted answer or note is withdrawn, an edited one replaced, everywhere. */
describe("gates: withdrawn and edited answers", { timeout: 90_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  /** Every value in the loop's Redis namespace (gates, issues, status log, queues and their jobs) as one text. */
  async function redisText(gates: Gates): Promise<string> {
    const redis = new Redis(gates.loop.config.redisUrl);
    try {
      const keys = await redis.keys(`${gates.loop.config.redisPrefix}:*`);
      const values = await Promise.all(
        keys.map(async (key) => {
          const type = await redis.type(key);
          if (type === "hash") return JSON.stringify(await redis.hgetall(key));
          if (type === "list") return JSON.stringify(await redis.lrange(key, 0, -1));
          if (type === "set") return JSON.stringify(await redis.smembers(key));
          if (type === "zset") return JSON.stringify(await redis.zrange(key, 0, -1));
          if (type === "stream") return JSON.stringify(await redis.xrange(key, "-", "+"));
          if (type === "string") return (await redis.get(key)) ?? "";
          return "";
        }),
      );
      expect(keys.length).toBeGreaterThan(0); // the scan looked where the app writes
      return `${keys.join("\n")}\n${values.join("\n")}`;
    } finally {
      await redis.quit();
    }
  }

  /** The status comment's hidden record (base64url JSON: invisible to a plain text search), as JSON text. */
  function statusRecord(gates: Gates, issue: number): string {
    return JSON.stringify(parseStatusComment(gates.statusBody(issue), sealFor(WEBHOOK_SECRET, issue)) ?? {});
  }

  /** Waits until no comment on the issue quotes `text` (the app's echo of a reply is redacted with it). */
  function unquotedOnGitHub(gates: Gates, issue: number, text: string): Promise<true> {
    return waitFor(
      `no comment on #${issue} quoting ${text}`,
      () => (!gates.comments(issue).some((c) => c.body.includes(text)) && !statusRecord(gates, issue).includes(text)) || undefined,
    );
  }

  /** The spawn job queued for the gate's answer has run to its end (started an agent or skipped): its outcome. */
  async function resumeJobDone(gates: Gates, gateId: string, reopened = 0): Promise<string> {
    return waitFor(`the resume job of gate ${gateId} done`, async () => {
      const state = await spawnState(gates.loop.app.services.queues.spawn, jobIds.resume(gateId, reopened));
      return state.kind === "ended" ? state.outcome : undefined;
    });
  }

  /** Every resume job queued for the gate (one per time it was answered) has run to its end. */
  async function allResumeJobsDone(gates: Gates, gateId: string): Promise<void> {
    const reopened = (await gates.loop.app.services.gates.getGate(gateId))?.reopened ?? 0;
    for (let r = 0; r <= reopened; r++) {
      if ((await spawnState(gates.loop.app.services.queues.spawn, jobIds.resume(gateId, r))).kind !== "unknown") await resumeJobDone(gates, gateId, r);
    }
  }

  it("an answer deleted before its resume started is withdrawn: the gate is open again and the next answer resumes once, with its own text", async () => {
    // One agent slot, held by a sleeping agent on another issue, keeps the resume queued.
    g = await Gates.start("ask", { AGENT_CONCURRENCY: "1" });
    const { issue, comment: ask } = await g.asked("Deleted in time");
    const busy = g.dispatch("Long job", { mode: "sleep" });
    await g.run(busy, 0);

    const reply = g.comment(issue, "maintainer", "Postgres, the admin password is hunter2-deleted");
    await waitFor("the answer recorded", async () => (await g!.loop.app.services.gates.getGate(String(ask.id)))?.state === "answered");
    const echo = await g.reply(issue, "hunter2-deleted"); // the app's echo quotes the note
    g.sim.deleteComment(REPO, reply.id, "maintainer");
    await g.statusLine(
      issue,
      `the answer of @maintainer to gate ${ask.id} was withdrawn (its comment was deleted) before the agent resumed; the gate is open again`,
    );
    await unquotedOnGitHub(g, issue, "hunter2");
    expect(g.comments(issue).find((c) => c.id === echo.id)?.body).toBe("📝 The reply this comment quoted was deleted; its words are no longer shown here.");
    expect(await g.loop.app.services.gates.getGate(String(ask.id))).toMatchObject({
      state: "open",
      answers: [],
      withdrawn: [{ by: "maintainer", questions: [0] }],
    });
    expect(g.labels(issue)).toContain("awaiting-human");

    // The slot frees: the resume queued for the withdrawn answer finds the gate open and starts nothing.
    g.comment(busy, "maintainer", "/stop");
    expect(await resumeJobDone(g, String(ask.id))).toBe("skipped: gate open");
    expect(g.runs(issue, 1)).toEqual([]);

    const second = g.comment(issue, "admin", "SQLite");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("Answer from human @admin");
    expect(task).toContain('choosing option "SQLite"');
    expect(task).toMatch(/An answer from human @maintainer was withdrawn at \S+ \(its comment was deleted\); its text is not available\./);
    expect(task).not.toContain("hunter2");
    await allResumeJobsDone(g, String(ask.id));
    await g.resumedWith(second.id, issue);
    await waitFor("the label off when the round ended", () => !g!.labels(issue).includes("awaiting-human"));
    expect(g.runs(issue, 1)).toHaveLength(1);
    expect(await redisText(g)).not.toContain("hunter2");
  });

  it("a deletion whose webhook is processed before or beside the answer's still withdraws it; a reply told 'already answered' is read again", async () => {
    g = await Gates.start("ask", { AGENT_CONCURRENCY: "1" });
    const { issue, comment: ask } = await g.asked("Deleted at once");
    const busy = g.dispatch("Long job", { mode: "sleep" });
    await g.run(busy, 0);

    // Both webhooks arrive together, so the loop may process them in either order or at once.
    g.sim.setWebhookDelivery("paused");
    const reply = g.comment(issue, "maintainer", "Postgres, the admin password is hunter2-racing");
    g.sim.deleteComment(REPO, reply.id, "maintainer");
    g.sim.setWebhookDelivery("live");
    await g.sim.whenDelivered();
    await g.statusLine(issue, `the answer of @maintainer to gate ${ask.id} was withdrawn (its comment was deleted)`);
    await waitFor("the gate open again", async () => (await g!.loop.app.services.gates.getGate(String(ask.id)))?.state === "open");

    // An answer, then a second reply (told it came too late), then the first one deleted: the second is taken.
    const first = g.comment(issue, "maintainer", "Postgres");
    await waitFor("the answer recorded", async () => (await g!.loop.app.services.gates.getGate(String(ask.id)))?.state === "answered");
    const later = g.comment(issue, "admin", "SQLite");
    await g.reply(issue, "@admin this question was already answered by @maintainer");
    g.sim.deleteComment(REPO, first.id, "maintainer");
    await waitFor("the later reply taken", async () => (await g!.loop.app.services.gates.getGate(String(ask.id)))?.answerCommentId === later.id);

    g.comment(busy, "maintainer", "/stop");
    const { task } = await g.run(issue, 1);
    expect(task).toContain("Answer from human @admin");
    expect(task).toContain('choosing option "SQLite"');
    expect(task).not.toContain("hunter2");
    await g.resumedWith(later.id, issue);
    await waitFor("the label off when the round ended", () => !g!.labels(issue).includes("awaiting-human"));
    // The gate was answered three times (the racing answer, "Postgres", the reply read again): one round.
    await allResumeJobsDone(g, String(ask.id));
    expect(g.runs(issue, 1)).toHaveLength(1);
  });

  it("one of two answering comments deleted once the gate was complete: only its answers go, the other stands", async () => {
    g = await Gates.start("ask2");
    const { issue, comment: ask } = await g.asked("Partial deleted");
    const partial = g.comment(issue, "maintainer", "1. SQLite, the admin password is hunter2-partial");
    await g.reply(issue, "Recorded 1 of 2 answers");
    g.comment(issue, "admin", "2. yes");
    await waitFor("the gate answered", async () => (await g!.loop.app.services.gates.getGate(String(ask.id)))?.answers.length === 2 || undefined);
    // Both answered: the round may already have started, or not; either way the deletion takes only Q1's answer.
    g.sim.deleteComment(REPO, partial.id, "maintainer");
    await g.statusLine(issue, `the answer of @maintainer to gate ${ask.id} was withdrawn (its comment was deleted)`);
    await unquotedOnGitHub(g, issue, "hunter2");
    const gate = (await g.loop.app.services.gates.getGate(String(ask.id)))!;
    expect(gate.answers.map((a) => [a.question, a.text])).toEqual([[1, "yes"]]);
    expect(gate.withdrawn).toMatchObject([{ by: "maintainer", questions: [0] }]);
    expect(await redisText(g)).not.toContain("hunter2");
  });

  it("a partial answer deleted before the gate was complete: that question waits again, and the round gets only the answers that stand", async () => {
    g = await Gates.start("ask2");
    const { issue, comment: ask } = await g.asked("Partial deleted early");
    const partial = g.comment(issue, "maintainer", "1. SQLite, the admin password is hunter2-partial");
    await g.reply(issue, "Recorded 1 of 2 answers");
    g.sim.deleteComment(REPO, partial.id, "maintainer");
    await g.statusLine(issue, `the answer of @maintainer to gate ${ask.id} was withdrawn (its comment was deleted); that question waits for an answer again`);
    await unquotedOnGitHub(g, issue, "hunter2");

    g.comment(issue, "admin", "2. yes");
    await g.reply(issue, /Recorded 1 of 2 answers[^]*Still open: \*\*1\.\*\*/);
    g.comment(issue, "admin", "1. Postgres");
    const { task } = await g.run(issue, 1);
    expect(task).toContain('choosing option "Postgres"');
    expect(task).toMatch(/An answer from human @maintainer was withdrawn at \S+ \(its comment was deleted\); its text is not available\./);
    expect(task).not.toContain("hunter2");
  });

  it("an answer deleted after its round: later rounds are not told it, Redis keeps no copy, and a rebuild does not bring it back", async () => {
    g = await Gates.start("ask-every");
    const { issue, comment: firstAsk } = await g.asked("Deleted later");
    const reply = g.comment(issue, "maintainer", "Postgres, the admin password is hunter2-after");
    expect((await g.run(issue, 1)).task).toContain("hunter2-after");
    const { comment: secondAsk } = await g.gate(issue, { count: 2 });
    expect(await redisText(g)).toContain("hunter2-after"); // the scan sees where the text was
    await g.reply(issue, "hunter2-after"); // and so does the app's echo
    // A note renders the status comment, whose hidden record (what a rebuild reads) now holds the answer.
    g.comment(issue, "admin", "/note keep the public API");
    await waitFor("the status comment's record with the answer", () => statusRecord(g!, issue).includes("hunter2-after") || undefined);

    g.sim.deleteComment(REPO, reply.id, "maintainer");
    await g.statusLine(issue, `the answer of @maintainer to gate ${firstAsk.id} was withdrawn (its comment was deleted); later rounds are not told its text`);
    // The status comment's record is rendered again without the text (a rebuild reads it).
    await unquotedOnGitHub(g, issue, "hunter2"); // the status comment's record and the echo
    expect(await redisText(g)).not.toContain("hunter2");

    const second = g.comment(issue, "maintainer", "SQLite");
    const round2 = (await g.run(issue, 2)).task;
    expect(round2).not.toContain("hunter2");
    expect(round2).toMatch(/An answer from human @maintainer was withdrawn at \S+ \(its comment was deleted\); its text is not available\./);
    expect(round2).toContain('choosing option "SQLite"');
    await g.gate(issue, { count: 3 });

    // Redis wiped: the rebuild reads GitHub, where the comment is gone, and the status comment.
    // Once the app's queued writes are out: a wipe takes what is still queued (README, "What it does not guarantee").
    await g.quiet();
    await g.loop.wipeRedis();
    await g.loop.restart();
    await waitFor("the first gate rebuilt", () => g!.loop.app.services.gates.getGate(String(firstAsk.id)));
    expect(await redisText(g)).not.toContain("hunter2");
    expect(await g.loop.app.services.gates.getGate(String(firstAsk.id))).toMatchObject({ answers: [], withdrawn: [{ by: "maintainer", questions: [0] }] });
    expect((await g.loop.app.services.gates.getGate(String(secondAsk.id)))?.answers[0]?.option).toBe("SQLite");
    // An answer the rebuild restored is withdrawn by a deletion too.
    g.sim.deleteComment(REPO, second.id, "maintainer");
    await g.statusLine(issue, `the answer of @maintainer to gate ${secondAsk.id} was withdrawn (its comment was deleted); later rounds are not told its text`);
    g.comment(issue, "maintainer", "Postgres");
    const round3 = (await g.run(issue, 3)).task;
    expect(round3).not.toContain("hunter2");
    expect(round3.match(/An answer from human @maintainer was withdrawn/g)).toHaveLength(2);
    expect(round3).not.toContain('choosing option "SQLite"');
  });

  it("an answer deleted while the app was down (no webhook): the start-up reconciliation withdraws it", async () => {
    g = await Gates.start("ask-every");
    const { issue, comment: firstAsk } = await g.asked("Deleted while down");
    const reply = g.comment(issue, "maintainer", "Postgres, the admin password is hunter2-down");
    expect((await g.run(issue, 1)).task).toContain("hunter2-down");
    await g.gate(issue, { count: 2 });
    g.comment(issue, "reader", "Following along."); // a later comment (ignored): the deleted one is older than the newest listed

    await g.loop.restart({ whileDown: () => g!.sim.deleteComment(REPO, reply.id, "maintainer") });
    await g.statusLine(issue, `the answer of @maintainer to gate ${firstAsk.id} was withdrawn (its comment was deleted); later rounds are not told its text`);
    expect((await g.loop.app.services.gates.getGate(String(firstAsk.id)))?.answers).toEqual([]);
    await unquotedOnGitHub(g, issue, "hunter2");
    expect(await redisText(g)).not.toContain("hunter2");
    g.comment(issue, "maintainer", "SQLite");
    expect((await g.run(issue, 2)).task).not.toContain("hunter2");
  });

  it("an answer deleted while the app was down and Redis was wiped: the rebuild does not take it from the status comment", async () => {
    g = await Gates.start("ask-every");
    const { issue, comment: firstAsk } = await g.asked("Deleted and wiped");
    const reply = g.comment(issue, "maintainer", "Postgres, the admin password is hunter2-wiped");
    await g.run(issue, 1);
    await g.gate(issue, { count: 2 });
    g.comment(issue, "admin", "/note keep the public API");
    await waitFor("the status comment's record with the answer", () => statusRecord(g!, issue).includes("hunter2-wiped") || undefined);

    await g.loop.restart({
      whileDown: async () => {
        g!.sim.deleteComment(REPO, reply.id, "maintainer");
        await g!.loop.wipeRedis();
      },
    });
    const rebuilt = await waitFor("the first gate rebuilt", () => g!.loop.app.services.gates.getGate(String(firstAsk.id)));
    expect(rebuilt).toMatchObject({ answers: [], withdrawn: [{ by: "maintainer", questions: [0] }] });
    expect(await redisText(g)).not.toContain("hunter2");
    g.comment(issue, "maintainer", "SQLite");
    const round2 = (await g.run(issue, 2)).task;
    expect(round2).not.toContain("hunter2");
    expect(round2).toContain("An answer from human @maintainer was withdrawn");
    expect(round2).toContain("> keep the public API");
  });

  it("an answer edited after its round: later rounds get the edited text, the round that ran kept the original", async () => {
    g = await Gates.start("ask-every");
    const { issue } = await g.asked("Edited later");
    const reply = g.comment(issue, "maintainer", "Postgres, the admin password is hunter2-edited");
    expect((await g.run(issue, 1)).task).toContain("hunter2-edited");
    await g.gate(issue, { count: 2 });
    expect(await redisText(g)).toContain("hunter2-edited");
    await g.reply(issue, "hunter2-edited");

    g.sim.editComment(REPO, reply.id, "maintainer", "Postgres, the admin password is in the vault");
    const note = await g.reply(
      issue,
      "your edit came after the agent had resumed with the original answer: that round keeps it, and every later round gets your edited text",
    );
    expect(note.body).toContain("/reopen");
    await g.statusLine(issue, "later rounds get the edited text");
    await unquotedOnGitHub(g, issue, "hunter2");
    expect(await redisText(g)).not.toContain("hunter2");

    g.comment(issue, "maintainer", "SQLite");
    const round2 = (await g.run(issue, 2)).task;
    expect(round2).toContain("> Postgres, the admin password is in the vault");
    expect(round2).not.toContain("hunter2");
    expect(round2).not.toContain("was withdrawn");
  });

  it("notes: an edited note is folded in as edited, a deleted one only as withdrawn, also after a rebuild", async () => {
    g = await Gates.start("ask-every");
    const { issue } = await g.asked("Notes changed");
    const edited = g.comment(issue, "maintainer", "/note deploy with the token hunter2-note-edited");
    const deleted = g.comment(issue, "admin", "/note the staging password is hunter2-note-deleted");
    await g.reacted(edited.id, issue, "+1");
    await g.reacted(deleted.id, issue, "+1");
    expect(await redisText(g)).toContain("hunter2-note-deleted");
    await waitFor(
      "the status comment's record with both notes",
      () => (statusRecord(g!, issue).includes("hunter2-note-deleted") && statusRecord(g!, issue).includes("hunter2-note-edited")) || undefined,
    );

    g.sim.editComment(REPO, edited.id, "maintainer", "/note deploy with the token from the vault");
    g.sim.deleteComment(REPO, deleted.id, "admin");
    await g.statusLine(issue, "the note from @maintainer was edited; later rounds get the edited text");
    await g.statusLine(issue, "a note from @admin was withdrawn (its comment was deleted); later rounds are not told its text");
    await unquotedOnGitHub(g, issue, "hunter2");
    expect(await redisText(g)).not.toContain("hunter2");

    g.comment(issue, "maintainer", "SQLite");
    const round1 = (await g.run(issue, 1)).task;
    expect(round1).toContain("> deploy with the token from the vault");
    expect(round1).toMatch(/A note from human @admin at \S+ was withdrawn \(its comment was deleted\); its text is not available\./);
    expect(round1).not.toContain("hunter2");
    await g.gate(issue, { count: 2 });

    // Once the app's queued writes are out: a wipe takes what is still queued (README, "What it does not guarantee").
    await g.quiet();
    await g.loop.wipeRedis();
    await g.loop.restart();
    await waitFor("the notes rebuilt", async () => (await g!.loop.app.services.notes.notes({ repo: REPO, issue })).length === 2 || undefined);
    expect(await redisText(g)).not.toContain("hunter2");
    g.comment(issue, "maintainer", "Postgres");
    const round2 = (await g.run(issue, 2)).task;
    expect(round2).toContain("> deploy with the token from the vault");
    expect(round2).toContain("A note from human @admin");
    expect(round2).not.toContain("hunter2");
  });
});
