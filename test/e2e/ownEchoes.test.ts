import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, quiet, startLoop, waitFor, type Loop } from "../support/harness.js";
import { deliveryOutcomes } from "../../src/queue/inboundQueue.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");
const LABEL = "awaiting-human";

/** The deliveries of a label taken off the issue that the app recorded and handled (none is left to do once the loop is quiet). */
async function unlabeledJobs(loop: Loop, issue: number): Promise<number> {
  await quiet(loop);
  const outcomes = await deliveryOutcomes(loop.app.services.queues.inbound);
  return outcomes.filter((o) => o.kind === "unlabeled" && o.issue === issue).length;
}

/**
 * Issue 18: the webhook of the app's own label removal is dropped at the boundary (no inbound job),
 * while the same event under the bot's name that the app did not make is still queued and acted on.
 */
describe("echoes of the app's own writes", { timeout: 120_000 }, () => {
  let loop: Loop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  it("queues no job for the app's own label removal, and still puts back a label taken off under the bot's name", async () => {
    const out = mkdtempSync(join(tmpdir(), "esc-echo-"));
    loop = await startLoop({
      AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask"]),
      RECONCILE_INTERVAL: "off",
      STATUS_DEBOUNCE: "1s",
    });
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache it.", author: "maintainer" }).number;
    sim.comment(REPO, issue, "maintainer", "/agent");
    const asked = await waitFor("the agent's question", () => loop!.app.services.gates.lastGate({ repo: REPO, issue }));
    await waitFor("the awaiting label", () => sim.issue(REPO, issue).labels.includes(LABEL));
    await waitFor("the app's record of the label", async () => (await loop!.app.services.issues.awaitingLabel({ repo: REPO, issue })) === "on");

    // Under the bot's name but not by the app (the agent's token): queued, and the label goes back on.
    // An agent whose token was widened to write issues (AGENT_TOKEN_PERMISSIONS; by default it reads only).
    const { token } = await loop.app.services.github.agentToken(asked.installationId, REPO, { issues: "write" });
    const res = await fetch(`${sim.apiUrl}/repos/${REPO}/issues/${issue}/labels/${LABEL}`, { method: "DELETE", headers: { authorization: `token ${token}` } });
    expect(res.status).toBeLessThan(300);
    await waitFor("the label put back", () => sim.issue(REPO, issue).labels.includes(LABEL));
    expect(await unlabeledJobs(loop, issue)).toBe(1);

    // The answer: the round that takes it ends and the app takes the label off itself.
    sim.comment(REPO, issue, "maintainer", "Postgres");
    await waitFor("the label taken off by the app", () => !sim.issue(REPO, issue).labels.includes(LABEL), 30_000);
    await waitFor("the app's record of its removal", async () => (await loop!.app.services.issues.awaitingLabel({ repo: REPO, issue })) === "off");
    // The removal's webhook went out with the DELETE; once answered, a queued job would exist.
    await sim.whenDelivered();
    expect(await unlabeledJobs(loop, issue)).toBe(1);
  });
});
