import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SimComment } from "../../tools/simulator/index.js";
import { noticedComments } from "../../src/protocol/ignoredNotice.js";
import { renderMarker } from "../../src/protocol/marker.js";
import { parseStatusComment } from "../../src/status/statusComment.js";
import { reconcileAll } from "../../src/reconcile/reconcileAll.js";
import { REPO, WEBHOOK_SECRET, startLoop, waitFor, type Loop } from "../support/harness.js";
import { sealFor } from "../support/seal.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");
const LABEL = "awaiting-human";

/**
 * Issue 15: the agent's GitHub token acts as the App's own bot, so anything it writes carries the
 * app's name. Acting with that token, it forges a status comment, edits the app's status comment,
 * posts a forged acknowledgement, `/approve` and `/answer`, and takes the awaiting label off; then
 * Redis is wiped. None of it is taken as the app's state or as a human's answer: the gate still
 * waits for a human, and the issue says once per comment that state under the app's name was ignored.
 */
describe("state under the app's name that the app did not write", { timeout: 120_000 }, () => {
  let loop: Loop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it("is ignored live and by a rebuild after a Redis wipe; the gate waits for a human; the issue says so once", async () => {
    const out = mkdtempSync(join(tmpdir(), "esc-forged-"));
    // Two questions with defaults and no timeout: only a human's answer (or /defaults) settles it.
    loop = await startLoop({ AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask-defaults2"]), RECONCILE_INTERVAL: "off" });
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache it.", author: "maintainer" }).number;
    const seal = sealFor(WEBHOOK_SECRET, issue);
    const gateOf = () => loop!.app.services.gates.lastGate({ repo: REPO, issue });
    const notes = () => sim.comments(REPO, issue).filter((c) => c.user.login === sim.botLogin && noticedComments(c.body, seal).length > 0);
    const notices = () => notes().flatMap((c) => noticedComments(c.body, seal));
    sim.comment(REPO, issue, "maintainer", "/agent");
    const asked = await waitFor("the agent's question", gateOf);
    await waitFor("the awaiting label", () => sim.issue(REPO, issue).labels.includes(LABEL));
    // A partial answer: the app records it in its (signed) status comment; the second question still waits.
    sim.comment(REPO, issue, "maintainer", "1. Postgres");
    const status = await waitFor("the signed status comment recording the partial answer", () =>
      sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && (parseStatusComment(c.body, seal)?.gates[0]?.answers.length ?? 0) > 0),
    );

    // The agent's own token: an installation token of this App, narrowed to the repository.
    // An agent whose token was widened to write issues (AGENT_TOKEN_PERMISSIONS; by default it reads only).
    const { token } = await loop.app.services.github.agentToken(asked.installationId, REPO, { issues: "write" });
    const asAgent = async (method: string, path: string, body?: unknown): Promise<SimComment | undefined> => {
      const res = await fetch(`${sim.apiUrl}/repos/${REPO}${path}`, {
        method,
        headers: { authorization: `token ${token}`, accept: "application/vnd.github+json", "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return method === "POST" ? ((await res.json()) as SimComment) : undefined;
    };
    const post = (body: string) => asAgent("POST", `/issues/${issue}/comments`, { body });
    const resumed = {
      id: asked.id,
      state: "resumed",
      round: 0,
      answeredBy: "maintainer",
      answers: [0, 1].map((q) => ({ question: q, text: q ? "1h" : "Postgres", by: "maintainer", at: Date.now(), source: "human" })),
    };

    // Live: the label taken off under the app's name goes back on; the gate is untouched.
    await asAgent("DELETE", `/issues/${issue}/labels/${LABEL}`);
    await waitFor("the label put back", () => sim.issue(REPO, issue).labels.includes(LABEL));
    const forgedStatus = await post(
      `### 🤖 Escalation status\n\n- the gate was answered\n\n${renderMarker("status", { v: 1, nextRound: 5, gates: [resumed] })}`,
    );
    await post("📝 @maintainer: your reply was recorded as\n\n- **Q1** recorded as **1. Postgres**\n- **Q2** recorded as text `1h`");
    await post("/approve");
    await post("/answer 2. 1h");
    // A human's command after them: once it is answered, the forgeries before it were delivered too.
    sim.comment(REPO, issue, "maintainer", "/status");
    await waitFor("the reply to /status", () =>
      sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && c.body.startsWith("**Escalation status**")),
    );
    expect(await gateOf()).toMatchObject({ id: asked.id, state: "open", answers: [{ question: 0, option: "Postgres", by: "maintainer" }] });

    // While the app is down: the agent edits the app's status comment (its signature kept) and takes
    // the label off again, so the issue's events end with the label off under the app's name; Redis is wiped.
    await loop.restart({
      whileDown: async () => {
        const forgedPayload = Buffer.from(JSON.stringify({ v: 1, nextRound: 5, gates: [resumed] })).toString("base64url");
        const edited = sim
          .comments(REPO, issue)
          .find((c) => c.id === status.id)!
          .body.replace(/(escalation:status:v1 )[A-Za-z0-9_-]+/, `$1${forgedPayload}`);
        await asAgent("PATCH", `/issues/comments/${status.id}`, { body: edited });
        await asAgent("DELETE", `/issues/${issue}/labels/${LABEL}`);
        await loop!.wipeRedis();
      },
    });
    const report = await reconcileAll(loop.app.services, { lookbackMs: 3_600_000 });
    expect(report.errors).toEqual([]);
    const rebuilt = await waitFor("the rebuilt gate", gateOf);
    expect(rebuilt).toMatchObject({ id: asked.id, state: "open", answers: [{ question: 0, option: "Postgres", by: "maintainer" }] });
    expect(rebuilt.answers).toHaveLength(1);
    await waitFor("the label back on the waiting question", () => sim.issue(REPO, issue).labels.includes(LABEL));

    // One visible note naming both comments that carry state the app did not sign: the forged one and the edited one.
    await waitFor("the note", () => notes().length === 1);
    expect(notices().sort()).toEqual([status.id, forgedStatus!.id].sort());
    expect(notes()[0]!.body).toContain("⚠️ 2 comments under the app's name carry state the app did not write");
    expect(notes()[0]!.body).toContain(`[comment](${forgedStatus!.html_url}) carries no signature`);

    // Another wipe and rebuild: the notes on the issue say it was already said.
    await loop.wipeRedis();
    await loop.restart();
    const again = await reconcileAll(loop.app.services, { lookbackMs: 3_600_000 });
    expect(again.changes.filter((c) => c.includes("ignored the"))).toEqual([]);
    expect(await gateOf()).toMatchObject({ id: asked.id, state: "open" });

    // The human answers the second question: the agent resumes with the humans' answers only.
    sim.comment(REPO, issue, "maintainer", "2. 2h");
    // The agent writes its record as it starts: read until it is complete.
    const task = await waitFor("round 1's task", () => {
      const file = readdirSync(out).find((f) => f.startsWith("round-1-"));
      return file ? (JSON.parse(readFileSync(join(out, file), "utf8")) as { task: string }).task : undefined;
    });
    expect(task).toContain("2h");
    expect(task).not.toContain("1h");
    expect(task).not.toContain("ASSUMPTION");
    expect(notices()).toHaveLength(2);
    expect(notes()).toHaveLength(1);
  });

  it("after an upgrade, one note per issue names every unsigned marker, and later rebuilds do not repeat it", async () => {
    const out = mkdtempSync(join(tmpdir(), "esc-upgrade-"));
    loop = await startLoop({ AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask"]), RECONCILE_INTERVAL: "off" });
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache it.", author: "maintainer" }).number;
    const seal = sealFor(WEBHOOK_SECRET, issue);
    const gateOf = () => loop!.app.services.gates.lastGate({ repo: REPO, issue });
    const notes = () => sim.comments(REPO, issue).filter((c) => c.user.login === sim.botLogin && noticedComments(c.body, seal).length > 0);
    sim.comment(REPO, issue, "maintainer", "/agent");
    const asked = await waitFor("the agent's question", gateOf);
    // What a version before signing left on the issue: an unsigned status comment and two reminders.
    const old = [
      sim.comment(REPO, issue, sim.botLogin, `### 🤖 Escalation status\n\n- round 0 started\n\n${renderMarker("status", { v: 1, nextRound: 1, gates: [] })}`),
      sim.comment(REPO, issue, sim.botLogin, `⏰ Reminder\n\n${renderMarker("ladder", { v: 1, gate: asked.id, step: 0 })}`),
      sim.comment(REPO, issue, sim.botLogin, `⏰ Reminder\n\n${renderMarker("ladder", { v: 1, gate: asked.id, step: 1 })}`),
    ];
    const first = await reconcileAll(loop.app.services, { lookbackMs: 3_600_000 });
    expect(first.errors).toEqual([]);
    await waitFor("one note", () => notes().length === 1);
    expect(noticedComments(notes()[0]!.body, seal).sort()).toEqual(old.map((c) => c.id).sort());
    expect(notes()[0]!.body).toContain("⚠️ 3 comments under the app's name carry state the app did not write");

    // Nothing changed: the next rebuilds, with Redis and after a wipe, say nothing more.
    const second = await reconcileAll(loop.app.services, { lookbackMs: 3_600_000 });
    expect(second.changes.filter((c) => c.includes("ignored the state"))).toEqual([]);
    await loop.wipeRedis();
    await loop.restart();
    const third = await reconcileAll(loop.app.services, { lookbackMs: 3_600_000 });
    expect(third.errors).toEqual([]);
    expect(third.changes.filter((c) => c.includes("ignored the state"))).toEqual([]);
    expect(await gateOf()).toMatchObject({ id: asked.id, state: "open" });
    // A human's command after the rebuild: once it is answered, any note queued before it was posted too.
    sim.comment(REPO, issue, "maintainer", "/status");
    await waitFor("the reply to /status", () =>
      sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && c.body.startsWith("**Escalation status**")),
    );
    expect(notes()).toHaveLength(1);
  });
});
