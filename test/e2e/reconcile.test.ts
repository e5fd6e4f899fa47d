import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseAskComment } from "../../src/protocol/ask.js";
import { freePort } from "../../src/redis/privateRedis.js";
import { REPO, quiet, startLoop, waitFor, type Loop } from "../support/harness.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");
const run = promisify(execFile);

function rounds(dir: string, round: number): number {
  return readdirSync(dir).filter((f) => f.startsWith(`round-${round}-`)).length;
}

describe("GitHub is the source of truth: rebuilding after Redis or the app lost events", () => {
  let loop: Loop;
  let out: string;

  beforeEach(async () => {
    out = mkdtempSync(join(tmpdir(), "esc-reconcile-"));
    loop = await startLoop({ AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask"]), RECONCILE_INTERVAL: "off" });
  });
  afterEach(async () => {
    await loop.close();
  });

  async function askedGate(): Promise<number> {
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache it.", author: "maintainer" });
    sim.comment(REPO, issue.number, "maintainer", "/agent");
    await waitFor("the awaiting-human label", () => sim.issue(REPO, issue.number).labels.includes("awaiting-human"));
    // The label is the gate's one write; GitHub's record of it is the ask comment and that label.
    await waitFor("the gate in Redis", () => loop.app.services.gates.lastGate({ repo: REPO, issue: issue.number }));
    return issue.number;
  }

  it("a reply after Redis was wiped rebuilds the gate from the issue and resumes once", async () => {
    const issue = await askedGate();
    await loop.wipeRedis();
    loop.sim.comment(REPO, issue, "maintainer", "SQLite");
    await waitFor("round 1 after the wipe", () => rounds(out, 1) === 1);
    await quiet(loop);
    expect(rounds(out, 1)).toBe(1);
  });

  it("an answer given while the app was down is picked up at start-up", async () => {
    const issue = await askedGate();
    await loop.restart({ whileDown: () => void loop.sim.comment(REPO, issue, "maintainer", "Postgres") });
    await waitFor("round 1 after the restart", () => rounds(out, 1) === 1);
    await quiet(loop);
    expect(rounds(out, 1)).toBe(1);
  });

  it("a gate already resumed is restored as resumed after a wipe, not resumed twice", async () => {
    const { sim } = loop;
    const issue = await askedGate();
    sim.comment(REPO, issue, "maintainer", "SQLite");
    await waitFor("round 1", () => rounds(out, 1) === 1);
    // The happy path leaves no status comment: the app taking the label off records the round's end.
    await waitFor("the label off: GitHub's record of the finished round", () => !sim.issue(REPO, issue).labels.includes("awaiting-human"));
    await loop.wipeRedis();
    await loop.restart();
    await quiet(loop);
    expect(rounds(out, 1)).toBe(1);
    const gate = await loop.app.services.gates.lastGate({ repo: REPO, issue });
    expect(gate?.state).toBe("resumed");
    expect(gate?.answers[0]?.option).toBe("SQLite");
  });

  it("an /agent redelivered after Redis was wiped runs once, though the app's 🚀 on it is behind a hundred others", async () => {
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Busy [mode:done]", body: "Everyone is excited.", author: "maintainer" }).number;
    // The crowd reacts before the app sees the comment, so the app's 🚀 is on the second page.
    sim.setWebhookDelivery("paused");
    const dispatch = sim.comment(REPO, issue, "maintainer", "/agent");
    for (let i = 0; i < 120; i++) sim.react(REPO, dispatch.id, sim.addUser(`fan-${i}`).login, "rocket");
    sim.setWebhookDelivery("live");
    await waitFor("round 0", () => rounds(out, 0) === 1);
    await waitFor("the app's 🚀", () => sim.comments(REPO, issue)[0]!.reactions.some((r) => r.user === sim.botLogin));
    // Timings are recorded once the round is marked done.
    await waitFor("round 0 over", async () => (await loop.app.services.rounds.roundTimings({ repo: REPO, issue })).length === 1);

    await loop.wipeRedis();
    const delivery = sim.deliveries.find((d) => d.event === "issue_comment" && d.action === "created")!;
    const readsBefore = sim.calls.length;
    expect(await sim.redeliver(delivery.id)).toBeLessThan(300);
    const readSecondPage = () => sim.calls.slice(readsBefore).some((c) => c.method === "GET" && c.route.endsWith("/reactions") && /[?&]page=2\b/.test(c.path));
    // The guard reads the 🚀 before a round starts: a second round would start right after its read.
    await waitFor("the redelivered /agent's guard, or a second round 0", () => readSecondPage() || rounds(out, 0) > 1, 20_000);
    await quiet(loop);
    expect(rounds(out, 0)).toBe(1);
    expect(readSecondPage()).toBe(true);
  });

  it("an /agent redelivered after a wipe that took its round's queued feedback runs once: the 🚀 went straight to GitHub", async () => {
    const { sim } = loop;
    const feedback = loop.app.workers!.feedback!;
    // Nothing the feedback queue holds is written: the wipe below takes it all unwritten.
    await feedback.pause();
    const issue = sim.createIssue(REPO, { title: "Queued feedback", body: "Cache it.", author: "maintainer" }).number;
    sim.comment(REPO, issue, "maintainer", "/agent");
    await waitFor("round 0's question recorded", () => loop.app.services.gates.lastGate({ repo: REPO, issue }));
    // With the feedback worker paused, only the spawn worker itself can have written it.
    await waitFor("the app's 🚀 on the /agent", () => sim.comments(REPO, issue)[0]!.reactions.some((r) => r.user === sim.botLogin && r.content === "rocket"));
    expect(sim.issue(REPO, issue).labels).not.toContain("awaiting-human"); // the label is queued feedback: none was written

    await loop.wipeRedis();
    feedback.resume();
    const delivery = sim.deliveries.find((d) => d.event === "issue_comment" && d.action === "created")!; // the /agent: the first comment
    const readsBefore = sim.calls.length;
    expect(await sim.redeliver(delivery.id)).toBeLessThan(300);
    const guardRead = () => sim.calls.slice(readsBefore).some((c) => c.method === "GET" && c.route.endsWith("/reactions"));
    await waitFor("the redelivered /agent's guard, or a second round 0", () => guardRead() || rounds(out, 0) > 1, 20_000);
    await quiet(loop);
    expect(rounds(out, 0)).toBe(1);
  });

  it("`escalate reconcile` opens a gate whose webhook never arrived and prints the change", async () => {
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Lost webhook", body: "", author: "maintainer" });
    sim.setWebhookUrl(undefined); // GitHub failed to deliver: the ask exists only on the issue
    sim.comment(
      REPO,
      issue.number,
      sim.botLogin,
      (await import("../../src/protocol/ask.js")).renderAskComment({
        v: 1,
        id: "lost-ask-1",
        kind: "question",
        round: 0,
        questions: [{ text: "Ship it?", options: ["yes", "no"] }],
      }),
    );
    sim.setWebhookUrl(`${loop.app.url}/api/github/webhooks`);
    const env = {
      ...process.env,
      ...sim.appEnv(),
      REDIS_URL: loop.config.redisUrl,
      REDIS_PREFIX: loop.config.redisPrefix,
    };
    const { stdout } = await run(resolve("bin/escalate"), ["reconcile"], { env });
    expect(stdout).toMatch(/reopened gate \d+ that Redis had lost/);
    await waitFor("the label added by the recovered gate", () => sim.issue(REPO, issue.number).labels.includes("awaiting-human"));
    const ask = sim.comments(REPO, issue.number).find((c) => parseAskComment(c.body));
    expect(ask).toBeDefined();
    const again = await run(resolve("bin/escalate"), ["reconcile"], { env });
    expect(again.stdout).toContain("No changes");
  });

  it("two replicas sharing one Redis turn one reply delivered to both into one spawn", async () => {
    const { sim } = loop;
    const issue = await askedGate();
    const { bootApp } = await import("../support/harness.js");
    const replica = await bootApp(sim, { ...loop.config, port: await freePort() });
    try {
      sim.setWebhookUrl(`${loop.app.url}/api/github/webhooks`);
      sim.comment(REPO, issue, "maintainer", "SQLite");
      await waitFor("round 1", () => rounds(out, 1) === 1);
      const delivery = sim.deliveries.filter((d) => d.event === "issue_comment").at(-1)!;
      sim.setWebhookUrl(`${replica.url}/api/github/webhooks`);
      expect(await sim.redeliver(delivery.id)).toBeLessThan(300);
      await quiet(loop);
      expect(rounds(out, 1)).toBe(1);
    } finally {
      await replica.close();
    }
  });
});
