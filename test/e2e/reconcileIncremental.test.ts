import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderAskComment, validateAsk } from "../../src/protocol/ask.js";
import { unfinishedJobs } from "../../src/queue/queues.js";
import { reconcileAll } from "../../src/reconcile/reconcileAll.js";
import { startLoop, waitFor, type Loop } from "../support/harness.js";
import { commandsDuring } from "../support/redisMonitor.js";

const IDLE = Array.from({ length: 12 }, (_, i) => `acme/idle-${i}`);
const GATED = "acme/gated";
/** Older than any pass's window: the seeded history is not activity. */
const LAST_WEEK = new Date(Date.now() - 7 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");

function ask(id: string): string {
  return renderAskComment(validateAsk({ v: 1, id, round: 0, questions: [{ text: "Which database?", options: ["Postgres", "SQLite"] }] }));
}

describe("periodic reconciliation reads only repositories with an open gate or activity; after a wipe, every one", () => {
  let loop: Loop;

  beforeEach(async () => {
    loop = await startLoop({ RECONCILE_INTERVAL: "off", RECONCILE_LOOKBACK: "1h" });
    const { sim } = loop;
    for (const repo of [...IDLE, GATED]) {
      sim.addRepo(repo);
      sim.setPermission(repo, "maintainer", "write");
      const thanks = { author: "maintainer", body: "Thanks!" };
      sim.seedIssues(repo, [{ title: "Old work", body: "Done long ago.", author: "maintainer", comments: [thanks], at: LAST_WEEK }]);
    }
    // A question asked last week, still waiting: its webhook was never seen by this app.
    const question = { author: sim.botLogin, body: ask("gated-1") };
    sim.seedIssues(GATED, [{ title: "Add a cache", body: "Cache it.", author: "maintainer", labels: ["awaiting-human"], comments: [question], at: LAST_WEEK }]);
  });
  afterEach(async () => {
    await loop.close();
  });

  const pass = () => reconcileAll(loop.app.services, { lookbackMs: 3600_000 });
  /** Repositories whose issues were read (the organisation's `.github`, where settings are looked up, is not one). */
  const reposRead = (from: number) => new Set(loop.sim.calls.slice(from).flatMap((c) => /^\/repos\/([^/]+\/[^/?]+)\/issues/.exec(c.path)?.[1] ?? []));
  const gateOf = (repo: string, issue: number) => loop.app.services.gates.lastGate({ repo, issue });

  it("the first pass after a wipe is full: the question older than the lookback gets its gate back", async () => {
    // The agent (as the App's bot) renamed the issue: the batch of histories says whose title it shows.
    loop.sim.editIssueTitle(GATED, 2, loop.sim.botLogin, "Renamed by the agent");
    await loop.sim.whenDelivered();
    // Its webhook handled before the wipe, so nothing written after it tells the rebuild of the rename.
    const inbound = loop.app.services.queues.inbound;
    await waitFor("the rename's webhook handled", async () => (await unfinishedJobs(inbound)) === 0);
    await loop.wipeRedis();
    let coalesced = 0;
    loop.app.services.events.on("github.write", ({ outcome }) => void (outcome === "coalesced" && coalesced++));
    const before = loop.sim.calls.length;
    const report = await pass();
    expect(report.mode).toBe("full");
    expect(report.errors).toEqual([]);
    expect((await gateOf(GATED, 2))?.state).toBe("open");
    expect((await loop.app.services.issues.getIssue({ repo: GATED, issue: 2 }))?.titleEdit).toEqual({ editor: loop.sim.botLogin, personsTitle: "Add a cache" });
    // Every repository was listed and read, idle or not.
    expect(reposRead(before)).toEqual(new Set(["acme/widgets", ...IDLE, GATED]));
    // A waiting question costs its comments page: no events (no reply could have answered it), no
    // body or title history of its own (one GraphQL request per repository read them all).
    const calls = loop.sim.calls.slice(before);
    expect(calls.filter((c) => c.route.endsWith("/events"))).toEqual([]);
    expect(calls.filter((c) => c.route === "POST /graphql").length).toBeLessThanOrEqual(IDLE.length + 2);
    // Nor a write: GitHub shows the label the app put on before the wipe, so its label-on is coalesced.
    await waitFor(
      "the feedback queue to drain, the label coalesced",
      async () => coalesced > 0 && (await loop.app.services.queues.feedback.unfinished()) === 0,
    );
    expect(loop.sim.calls.slice(before).filter((c) => c.method !== "GET" && c.route.startsWith("POST /repos/"))).toEqual([]);
  });

  it("a periodic pass after it makes no call for an idle repository, reads the one with an open gate, and one with activity", async () => {
    const { sim } = loop;
    await loop.wipeRedis();
    expect((await pass()).mode).toBe("full");
    expect((await gateOf(GATED, 2))?.state).toBe("open");

    const idleBefore = sim.calls.length;
    const idle = await pass();
    expect(idle.mode).toBe("incremental");
    expect(reposRead(idleBefore)).toEqual(new Set([GATED]));
    // Besides the open gate's repository: the App's installations and one search, nothing per idle repository.
    const elsewhere = sim.calls
      .slice(idleBefore)
      .filter((c) => !c.path.startsWith(`/repos/${GATED}/`) && c.route !== "POST /graphql" && !c.actor.startsWith("app:"));
    expect(elsewhere.map((c) => c.route)).toEqual(["GET /search/issues"]);

    // An agent asks in an idle repository and GitHub never delivers the webhook.
    sim.setWebhookUrl(undefined);
    const lost = sim.createIssue(IDLE[3]!, { title: "Lost webhook", body: "", author: "maintainer" });
    sim.comment(IDLE[3]!, lost.number, sim.botLogin, ask("lost-1"));
    sim.setWebhookUrl(`${loop.app.url}/api/github/webhooks`);
    const activeBefore = sim.calls.length;
    // The repositories with open gates are one read of their index (built by the pass before), not one per open gate.
    let active: Awaited<ReturnType<typeof pass>> | undefined;
    const { redisUrl, redisPrefix } = loop.config;
    const commands = await commandsDuring(redisUrl, redisPrefix, async () => (active = await pass()));
    const index = loop.app.services.gates.keys.openGateRepos();
    // (The gate the pass opens again is counted into it by its script: those commands run inside it.)
    expect(commands.filter((c) => !c.inScript && c.args[0] === index)).toEqual([{ name: "hgetall", args: [index], inScript: false }]);
    const openGates = loop.app.services.gates.keys.openGates();
    const perGate = (c: (typeof commands)[number]) =>
      (c.name === "zrange" && c.args[0] === openGates) || (c.name === "hmget" && c.args.slice(1).join() === "installationId,repo");
    expect(commands.filter((c) => !c.inScript && perGate(c))).toEqual([]);
    if (!active) throw new Error("the pass returned no report");
    expect(active.mode).toBe("incremental");
    expect(active.errors).toEqual([]);
    expect(reposRead(activeBefore)).toEqual(new Set([GATED, IDLE[3]]));
    expect((await gateOf(IDLE[3]!, lost.number))?.state).toBe("open");
  });

  it("when Redis loses the time of the last pass, the next scheduled pass is full again", async () => {
    expect((await pass()).mode).toBe("incremental");
    await loop.wipeRedis();
    const before = loop.sim.calls.length;
    expect((await pass()).mode).toBe("full");
    expect(reposRead(before).size).toBe(IDLE.length + 2);
  });
});
