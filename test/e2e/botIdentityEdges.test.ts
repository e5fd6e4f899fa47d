import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SimComment } from "../../src/dev/simulator/index.js";
import { reconcileAll } from "../../src/reconcile/reconcileAll.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");
const LABEL = "awaiting-human";

/** Runs of rounds after the first (the rounds that took an answer), however numbered. */
function laterRuns(dir: string): number {
  return readdirSync(dir).filter((f) => /^round-[1-9]\d*-/.test(f)).length;
}

/** Requests made with the agent's own token: an installation token of this App, acting as its bot. */
async function agentActs(loop: Loop, installationId: number) {
  const { token } = await loop.app.services.github.agentToken(installationId, REPO);
  return async (method: string, path: string, body?: unknown): Promise<SimComment | undefined> => {
    const res = await fetch(`${loop.sim.apiUrl}/repos/${REPO}${path}`, {
      method,
      headers: { authorization: `token ${token}`, accept: "application/vnd.github+json", "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return method === "POST" ? ((await res.json()) as SimComment) : undefined;
  };
}

/**
 * Issue 15, item 4: what the agent's token (the App's bot identity) does that the app did not do
 * itself is never taken as the app's or a human's, live or by a rebuild after a Redis wipe.
 */
describe("edges of the bot identity the agent shares", { timeout: 120_000 }, () => {
  let loop: Loop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it("the awaiting label taken off under the bot's name while the answered round runs goes back on, so a rebuild runs that round again", async () => {
    const out = mkdtempSync(join(tmpdir(), "esc-label-"));
    loop = await startLoop({ AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask-sleep"]), RECONCILE_INTERVAL: "off" });
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache it.", author: "maintainer" }).number;
    const gateOf = () => loop!.app.services.store.lastGate({ repo: REPO, issue });
    sim.comment(REPO, issue, "maintainer", "/agent");
    const asked = await waitFor("the agent's question", gateOf);
    await waitFor("the awaiting label", () => sim.issue(REPO, issue).labels.includes(LABEL));
    // A full answer: the round that takes it starts and runs on (the agent sleeps).
    sim.comment(REPO, issue, "maintainer", "Postgres");
    await waitFor("the answered round running", () => laterRuns(out) === 1);
    const asAgent = await agentActs(loop, asked.installationId);

    // The agent takes the label off, as the app does only when that round ends.
    await asAgent("DELETE", `/issues/${issue}/labels/${LABEL}`);
    await waitFor("the label put back", () => sim.issue(REPO, issue).labels.includes(LABEL));
    expect((await gateOf())?.state).toBe("resuming");
    const line = await waitFor("the status line saying so", () =>
      sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && c.body.includes(`was taken off by @${sim.botLogin} while the round that took gate ${asked.id}'s answer runs`)),
    );
    expect(line.body).toContain("it comes off when that round ends");

    // The app stops with the round unfinished and Redis is wiped: GitHub's record must not say the round ended.
    await loop.restart({ whileDown: () => loop!.wipeRedis() });
    const report = await reconcileAll(loop.app.services, { lookbackMs: 3_600_000 });
    expect(report.errors).toEqual([]);
    await waitFor("the answered round run again", () => laterRuns(out) === 2, 30_000);
  });
});
