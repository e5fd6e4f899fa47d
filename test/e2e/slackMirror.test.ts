import { afterEach, describe, expect, it } from "vitest";
import { FakeSlack } from "../support/fakeSlack.js";
import { agentRuns, askedGate, recordingAgent } from "../support/flow.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";

const SLACK_TOKEN = "xoxb-test-token";
const CHANNEL = "C0TEST";

interface Timing {
  /** /agent comment → the agent's question registered (the label). */
  askMs: number;
  /** Answer comment → the round-1 agent process started. */
  answerToSpawnMs: number;
}

let loop: Loop | undefined;
let slack: FakeSlack | undefined;
afterEach(async () => {
  // Slack first: dropping its held connections lets the mirror worker stop at once.
  await slack?.stop();
  await loop?.close();
  loop = undefined;
  slack = undefined;
});

/** A full ask → answer → spawn; `beforeAnswer` runs while the gate is open. */
async function fullRound(l: Loop, out: string, beforeAnswer?: () => Promise<void>): Promise<Timing & { issue: number; gateId: string; spawnedAt: number }> {
  const { issue, gateId, dispatchedAt, registeredAt } = await askedGate(l);
  await beforeAnswer?.();
  const answeredAt = Date.now();
  l.sim.comment(REPO, issue, "maintainer", "2");
  const [run] = await waitFor("round 1", () => (agentRuns(out, 1).length > 0 ? agentRuns(out, 1) : undefined));
  expect(run!.task).toContain('choosing option "SQLite"');
  return { issue, gateId, askMs: registeredAt - dispatchedAt, answerToSpawnMs: run!.startedAt - answeredAt, spawnedAt: run!.startedAt };
}

describe("the Slack mirror", () => {
  it("never delays the loop: with Slack answering 500 and hanging, ask → answer → spawn takes as long as without Slack", async () => {
    const baselineAgent = recordingAgent();
    loop = await startLoop(baselineAgent.env);
    const baseline = await fullRound(loop, baselineAgent.out);
    await loop.close();
    loop = undefined;

    slack = await new FakeSlack().start();
    // The first call fails with a 500; every later one is held open without an answer.
    slack.behave = ({ index }) => (index === 0 ? "500" : "hang");
    const agent = recordingAgent();
    loop = await startLoop({ ...agent.env, SLACK_BOT_TOKEN: SLACK_TOKEN, SLACK_CHANNEL: CHANNEL, SLACK_API_URL: slack.apiUrl, SLACK_TIMEOUT: "20s" });
    const s = slack;
    const outage = await fullRound(loop, agent.out, async () => {
      // Answer only once Slack has failed and the retry is hanging: the resume runs during the hang.
      await waitFor("a 500 then a hanging retry", () => s.calls.length >= 2, 10_000);
    });

    expect(s.calls.map((c) => [c.method, c.behaviour])).toEqual([
      ["chat.postMessage", "500"],
      ["chat.postMessage", "hang"],
    ]);
    // The tolerances absorb a loaded machine; a loop that waited on the hanging call (SLACK_TIMEOUT
    // is 20 s) or on the 500's retry would exceed them by far more.
    expect(outage.askMs).toBeLessThan(baseline.askMs * 2 + 3000);
    expect(outage.answerToSpawnMs).toBeLessThan(baseline.answerToSpawnMs * 2 + 3000);
    expect(outage.answerToSpawnMs).toBeLessThan(10_000);
    // The resumed agent started while the Slack call was still hanging (it is cut after 20 s).
    expect(outage.spawnedAt - s.calls[1]!.at).toBeLessThan(20_000);
    expect(outage.spawnedAt).toBeGreaterThan(s.calls[1]!.at);
    // The loop's own state is untouched by the mirror.
    // (The agent may write its record a moment before the app marks the start, so wait for it.)
    const l = loop;
    const gate = await waitFor(
      "the gate marked resumed",
      async () => {
        const g = await l.app.services.gates.getGate(outage.gateId);
        return g?.state === "resumed" ? g : undefined;
      },
      5000,
    );
    expect(gate.answeredBy).toBeDefined();
  });

  it("posts the gate's questions to the channel and updates that message when it is answered", async () => {
    slack = await new FakeSlack().start();
    const agent = recordingAgent();
    loop = await startLoop({ ...agent.env, SLACK_BOT_TOKEN: SLACK_TOKEN, SLACK_CHANNEL: CHANNEL, SLACK_API_URL: slack.apiUrl, SLACK_TIMEOUT: "2s" });
    const s = slack;
    const { issue, gateId } = await fullRound(loop, agent.out, async () => {
      await waitFor("the Slack message", () => s.calls.find((c) => c.method === "chat.postMessage"));
    });
    const update = await waitFor("the Slack update", () => s.calls.find((c) => c.method === "chat.update"));

    const post = s.calls[0]!;
    expect(post.method).toBe("chat.postMessage");
    expect(post.headers.authorization).toBe(`Bearer ${SLACK_TOKEN}`);
    expect(post.params.channel).toBe(CHANNEL);
    expect(post.params.text).toBe(`An agent needs input on ${REPO}#${issue}: Which database should the cache use?`);
    const posted = JSON.stringify(FakeSlack.blocks(post));
    expect(posted).toContain("*Which database should the cache use?*\\n1. Postgres\\n2. SQLite");
    expect(posted).toContain(`#issuecomment-${gateId}`);
    expect(posted).toContain("Answer on GitHub");

    expect(update.params.channel).toBe(CHANNEL);
    expect(update.params.ts).toBe("1700000000.000001");
    const updated = JSON.stringify(FakeSlack.blocks(update));
    expect(updated).toContain(`✅ Answered: ${REPO}#${issue}`);
    expect(updated).toContain("*Answered by @maintainer: SQLite.*");
    expect(s.calls.filter((c) => c.method === "chat.postMessage")).toHaveLength(1);
  });

  it("takes a deleted answer off the message again", async () => {
    slack = await new FakeSlack().start();
    const agent = recordingAgent();
    loop = await startLoop({ ...agent.env, SLACK_BOT_TOKEN: SLACK_TOKEN, SLACK_CHANNEL: CHANNEL, SLACK_API_URL: slack.apiUrl, SLACK_TIMEOUT: "2s" });
    const s = slack;
    const { issue } = await askedGate(loop);
    await waitFor("the Slack message", () => s.calls.find((c) => c.method === "chat.postMessage"));
    const reply = loop.sim.comment(REPO, issue, "maintainer", "whatever the vault says, not hunter2-slack");
    await waitFor("round 1", () => agentRuns(agent.out, 1)[0]);
    const answered = await waitFor("the Slack update with the answer", () =>
      s.calls.find((c) => c.method === "chat.update" && JSON.stringify(FakeSlack.blocks(c)).includes("hunter2-slack")),
    );
    expect(JSON.stringify(FakeSlack.blocks(answered))).toContain("Answered by @maintainer");

    loop.sim.deleteComment(REPO, reply.id, "maintainer");
    const redacted = await waitFor("a later Slack update", () => s.calls.filter((c) => c.method === "chat.update").at(1));
    expect(JSON.stringify(FakeSlack.blocks(redacted))).not.toContain("hunter2");
  });
});
