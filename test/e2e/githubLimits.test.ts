import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SECONDARY_LIMIT_MESSAGE, type ContentWrite } from "../../tools/simulator/index.js";
import { newAskId, renderAskComment, validateAsk } from "../../src/protocol/ask.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");
const LABEL = "awaiting-human";
const ADMIN_TOKEN = "limits-admin-token-0123456789";

/** The most writes any window of `windowMs` holds. */
function busiestWindow(writes: readonly ContentWrite[], windowMs: number): number {
  const times = writes.map((w) => w.at).sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

function rounds(dir: string, round: number): number {
  return readdirSync(dir).filter((f) => f.startsWith(`round-${round}-`)).length;
}

const ask = () =>
  renderAskComment(
    validateAsk({ v: 1, id: newAskId(), round: 0, questions: [{ text: "Which database should the cache use?", options: ["Postgres", "SQLite"] }] }),
  );

describe("GitHub's limits: a write budget per installation and GitHub's secondary limit", () => {
  let loop: Loop | undefined;
  afterEach(async () => {
    await loop?.close();
    loop = undefined;
  });

  /** The app with a small budget over short windows ("minute" 1 s, "hour" 10 s). */
  async function start(agent: string[], env: Record<string, string> = {}): Promise<Loop> {
    return startLoop({
      AGENT_COMMAND: JSON.stringify(agent),
      AGENT_CONCURRENCY: "8",
      GITHUB_WRITES_PER_MINUTE: "20",
      GITHUB_WRITE_MINUTE: "1s",
      GITHUB_WRITES_PER_HOUR: "150",
      GITHUB_WRITE_HOUR: "10s",
      STATUS_DEBOUNCE: "1s",
      RECONCILE_INTERVAL: "off",
      ADMIN_TOKEN,
      ...env,
    });
  }

  it("a burst of 200 escalations resumes every one at once and writes no more than the budget in any window; the labels follow as it returns", async () => {
    loop = await start(["/bin/sh", "-c", "exit 0"]); // a trivial agent: the burst is the app's
    const { sim } = loop;
    // GitHub here allows exactly the app's budget: one write past it would be refused.
    sim.setContentLimits({ perMinute: 20, minuteMs: 1000, perHour: 150, hourMs: 10_000, retryAfterSeconds: 5 });
    const store = loop.app.services;
    const issues: number[] = [];
    for (let i = 0; i < 200; i++) {
      const issue = sim.createIssue(REPO, { title: `Burst ${i}`, body: "Cache the lookups.", author: "maintainer" });
      // The agent's ask, posted as the App's bot (as `escalate ask` does with the installation token).
      sim.comment(REPO, issue.number, sim.botLogin, ask());
      issues.push(issue.number);
    }
    const open = async () => (await Promise.all(issues.map((issue) => store.gates.lastGate({ repo: REPO, issue })))).filter((g) => g?.state === "open").length;
    await waitFor("200 open gates", async () => (await open()) === 200, 60_000);

    // The 200 labels go on within the budget: 150 in the first "hour", the rest as it returns.
    const labelled = () => issues.filter((issue) => sim.issue(REPO, issue).labels.includes(LABEL)).length;
    await waitFor("some labels", () => labelled() >= 20, 10_000);
    expect(labelled()).toBeLessThan(200); // the budget holds the rest back…
    await waitFor("every label", () => labelled() === 200, 60_000); // …and loses none

    // Every answer resumes its agent at once: spawning never waits for the write budget.
    const answeredAt = Date.now();
    for (const issue of issues) sim.comment(REPO, issue, "maintainer", "SQLite");
    const resumed = async () =>
      (await Promise.all(issues.map((issue) => store.gates.lastGate({ repo: REPO, issue })))).filter((g) => g?.state === "resumed").length;
    await waitFor("200 resumed rounds", async () => (await resumed()) === 200, 150_000);
    const resumedIn = Date.now() - answeredAt;
    await waitFor("every label off", () => labelled() === 0, 60_000);
    const labelsOffIn = Date.now() - answeredAt;
    expect(resumedIn).toBeLessThan(labelsOffIn);

    const writes = sim.contentWrites.filter((w) => w.caller === "installation:1");
    expect(writes.filter((w) => w.refused !== 0)).toEqual([]); // never past GitHub's limit…
    expect(busiestWindow(writes, 1000)).toBeLessThanOrEqual(20); // …nor the budget, in any "minute"
    expect(busiestWindow(writes, 10_000)).toBeLessThanOrEqual(150); // or "hour"
    // Two writes a round trip: the label on, the label off. No reaction, no status comment.
    expect(writes).toHaveLength(400);
    for (const issue of issues) {
      expect(
        sim
          .issueEvents(REPO, issue)
          .filter((e) => e.label === LABEL)
          .map((e) => `${e.event} by ${e.actor}`),
      ).toEqual([`labeled by ${sim.botLogin}`, `unlabeled by ${sim.botLogin}`]);
      expect(sim.comments(REPO, issue).filter((c) => c.body.includes("Escalation status"))).toEqual([]);
    }
    const metrics = await (await fetch(`${loop.app.url}/metrics`)).text();
    expect(Number(/escalation_github_writes_total\{outcome="deferred"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(metrics).toMatch(/escalation_github_writes_total\{outcome="written"\} 400/);
  }, 280_000);

  it("GitHub's secondary limit stops the installation's writes for the time it asks, shows on the metrics and the status JSON, and never holds a resume back", async () => {
    const out = mkdtempSync(join(tmpdir(), "esc-limits-"));
    loop = await start([process.execPath, AGENT, out, "{round}", "done"], {
      GITHUB_WRITES_PER_MINUTE: "40",
      GITHUB_WRITE_MINUTE: "60s",
      GITHUB_WRITES_PER_HOUR: "300",
      GITHUB_WRITE_HOUR: "1h",
    });
    const { sim } = loop;
    const [a, b] = [0, 1].map((i) => {
      const issue = sim.createIssue(REPO, { title: `Limited ${i}`, body: "", author: "maintainer" });
      sim.comment(REPO, issue.number, sim.botLogin, ask());
      return issue.number;
    }) as [number, number];
    await waitFor("both labels", () => sim.issue(REPO, a).labels.includes(LABEL) && sim.issue(REPO, b).labels.includes(LABEL));

    // The next write (A's label coming off once its round ends) meets the secondary limit.
    sim.tripSecondaryLimit({ installationId: 1, retryAfterSeconds: 4 });
    sim.comment(REPO, a, "maintainer", "Postgres");
    const refused = await waitFor("the refused write", () => sim.contentWrites.find((w) => w.refused === 403));
    expect(rounds(out, 1)).toBe(1); // A's round ran before its write was refused

    const metrics = await waitFor("the pause on the metrics", async () => {
      const text = await (await fetch(`${loop!.app.url}/metrics`)).text();
      return text.includes('escalation_github_write_paused{installation="1"} 1') ? text : undefined;
    });
    expect(Number(/escalation_github_write_pause_seconds\{installation="1"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
    const status = (await (await fetch(`${loop.app.url}/escalation/api/gates`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
      github: { paused: Array<{ installationId: number; secondsLeft: number }> };
    };
    expect(status.github.paused).toEqual([{ installationId: 1, secondsLeft: expect.any(Number) }]);

    // While the installation may not write, B's answer still resumes B's agent at once.
    sim.comment(REPO, b, "maintainer", "SQLite");
    await waitFor("B's round", () => rounds(out, 1) === 2);
    expect(sim.contentWrites.filter((w) => w.at > refused.at)).toEqual([]); // nothing written meanwhile
    expect(sim.issue(REPO, a).labels).toContain(LABEL);

    // Once the time GitHub asked for has passed, both labels come off: nothing was lost.
    await waitFor("both labels off", () => !sim.issue(REPO, a).labels.includes(LABEL) && !sim.issue(REPO, b).labels.includes(LABEL), 20_000);
    const after = sim.contentWrites.filter((w) => w.at > refused.at);
    expect(after[0]!.at - refused.at).toBeGreaterThanOrEqual(4000);
    expect(sim.contentWrites.filter((w) => w.whileLimited)).toEqual([]);
    expect(after.every((w) => w.refused === 0)).toBe(true);
    const calmed = await (await fetch(`${loop.app.url}/metrics`)).text();
    expect(calmed).toMatch(/escalation_github_write_paused\{installation="1"\} 0/);
    expect(calmed).toMatch(/escalation_github_writes_total\{outcome="limited"\} 1/);
    expect(SECONDARY_LIMIT_MESSAGE).toMatch(/^You have exceeded a secondary rate limit/);
  }, 60_000);
});
