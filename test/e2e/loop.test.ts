import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseAskComment } from "../../src/protocol/ask.js";
import { isContentCreating } from "../../tools/simulator/index.js";
import { REPO, quiet, startLoop, waitFor, type Loop } from "../support/harness.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");

interface Recorded {
  startedAt: number;
  argv: string[];
  env: Record<string, string>;
  task: string;
  cwd: string;
}

function runs(dir: string, round?: number): Recorded[] {
  return readdirSync(dir)
    .filter((f) => (round === undefined ? f.startsWith("round-") : f.startsWith(`round-${round}-`)))
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Recorded);
}

describe("the escalation loop end to end", () => {
  let loop: Loop;
  let out: string;

  beforeEach(async () => {
    out = mkdtempSync(join(tmpdir(), "esc-e2e-"));
    loop = await startLoop({ AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask"]) });
  });
  afterEach(async () => {
    await loop.close();
  });

  /** Dispatches round 0 and waits until the agent's question is registered (the label: its one write). */
  async function askedGate(): Promise<{ issue: number; askId: number }> {
    const { sim } = loop;
    const issue = sim.createIssue(REPO, { title: "Add a cache", body: "Cache the expensive lookups.", author: "maintainer" });
    sim.comment(REPO, issue.number, "maintainer", "/agent");
    const ask = await waitFor("the agent's ask comment", () =>
      sim.comments(REPO, issue.number).find((c) => c.user.login === sim.botLogin && parseAskComment(c.body) !== undefined),
    );
    await waitFor("the awaiting-human label", () => sim.issue(REPO, issue.number).labels.includes("awaiting-human"));
    return { issue: issue.number, askId: ask.id };
  }

  it("asks, records the gate, takes a human's reply and re-spawns the agent with the Q+A folded in", async () => {
    const { sim } = loop;
    const { issue } = await askedGate();
    const [first] = runs(out, 0);
    expect(first?.env.ESCALATION_ROUND).toBe("0");
    expect(first?.env.GITHUB_REPOSITORY).toBe(REPO);
    expect(first?.env.ESCALATION_ISSUE).toBe(String(issue));
    expect(first?.env.GITHUB_API_URL).toBe(sim.apiUrl);
    expect(first?.task).toContain("Add a cache");

    const reply = sim.comment(REPO, issue, "maintainer", "SQLite, keep it embedded");
    const [second] = await waitFor("round 1", () => (runs(out, 1).length > 0 ? runs(out, 1) : undefined));
    expect(second!.task).toContain("Which database should the cache use?");
    expect(second!.task).toContain('choosing option "SQLite"');
    expect(second!.task).toContain("> keep it embedded");
    expect(second!.task).toContain("@maintainer");
    expect(second!.env.ESCALATION_ROUND).toBe("1");

    // The happy path writes twice (README, "GitHub's limits"): the label on when the question is
    // registered, off when the round that took the answer ended. No reaction, no status comment:
    // its lines are kept for the next render that something else calls for. This reply was
    // interpreted (an option with a note), so one more: the comment saying how it was read.
    await waitFor("label removed", () => !sim.issue(REPO, issue).labels.includes("awaiting-human"));
    const ask = sim.comments(REPO, issue).find((c) => parseAskComment(c.body) !== undefined)!;
    const asked = sim.calls.findIndex(
      (c) => c.route === "POST /repos/{owner}/{repo}/issues/{issue_number}/comments" && c.actor === sim.botLogin && c.path.includes(`/issues/${issue}/`),
    );
    await quiet(loop);
    const writes = sim.calls
      .slice(asked + 1)
      .filter((c) => c.actor === sim.botLogin && isContentCreating(c.method, c.route.slice(c.method.length + 1)) && c.path.includes(`/issues/${issue}/`));
    expect(writes.map((c) => c.route)).toEqual([
      "POST /repos/{owner}/{repo}/issues/{issue_number}/labels",
      "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
      "DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
    ]);
    expect(sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && c.body.startsWith("📝"))?.body).toContain(
      "Recorded as **2. SQLite**, with the note `keep it embedded`",
    );
    expect(sim.comments(REPO, issue).filter((c) => c.body.includes("Escalation status"))).toHaveLength(0);
    expect(
      sim
        .comments(REPO, issue)
        .flatMap((c) => c.reactions)
        .filter((r) => r.user === sim.botLogin && r.content !== "rocket"),
    ).toEqual([]);
    expect(sim.comments(REPO, issue).find((c) => c.id === reply.id)?.reactions).toEqual([]);
    expect(ask.reactions).toEqual([]);
    const lines = await loop.app.services.statusLog.statusLines({ repo: REPO, issue });
    expect(lines.join("\n")).toMatch(/asked a question[\s\S]*round 1: agent started with the answer of @maintainer[\s\S]*round 1: agent finished/);
    // Both rounds ran to their end: the issue's hash keeps neither job's round (src/store/issueRounds.ts).
    const redis = new Redis(loop.config.redisUrl);
    try {
      const fields = await redis.hkeys(loop.app.services.issues.key({ repo: REPO, issue }));
      expect(fields.filter((f) => f.startsWith("spawn:"))).toEqual([]);
      expect(await redis.scard(loop.app.services.rounds.roundsDoneKey({ repo: REPO, issue }))).toBe(2);
    } finally {
      redis.disconnect();
    }
  });

  it("an answer given as the option's number selects that option", async () => {
    const { issue } = await askedGate();
    loop.sim.comment(REPO, issue, "admin", "2");
    const [second] = await waitFor("round 1", () => (runs(out, 1).length > 0 ? runs(out, 1) : undefined));
    expect(second!.task).toContain('choosing option "SQLite"');
  });

  it("a duplicated delivery of the reply spawns once", async () => {
    const { sim } = loop;
    const { issue } = await askedGate();
    sim.comment(REPO, issue, "maintainer", "Postgres");
    await waitFor("round 1", () => runs(out, 1).length > 0);
    const delivery = sim.deliveries.filter((d) => d.event === "issue_comment" && d.action === "created").at(-1)!;
    expect(await sim.redeliver(delivery.id)).toBeLessThan(300);
    expect(await sim.redeliver(delivery.id)).toBeLessThan(300);
    await quiet(loop);
    expect(runs(out, 1)).toHaveLength(1);
    expect(runs(out)).toHaveLength(2);
  });

  it("two racing replies yield one spawn, and the second replier is told who answered", async () => {
    const { sim } = loop;
    const { issue } = await askedGate();
    sim.comment(REPO, issue, "maintainer", "Postgres");
    sim.comment(REPO, issue, "admin", "SQLite");
    await waitFor("round 1", () => runs(out, 1).length > 0);
    await waitFor("the note to the second replier", () =>
      sim.comments(REPO, issue).find((c) => c.user.login === sim.botLogin && c.body.includes("@admin") && c.body.includes("already answered by @maintainer")),
    );
    await quiet(loop);
    expect(runs(out, 1)).toHaveLength(1);
  });

  it("a reply from a read-only user or a bot does not answer; a maintainer's later reply does", async () => {
    const { sim } = loop;
    const { issue } = await askedGate();
    sim.comment(REPO, issue, "reader", "SQLite");
    sim.comment(REPO, issue, "renovate[bot]", "Postgres");
    await quiet(loop);
    expect(runs(out, 1)).toHaveLength(0);
    expect(sim.issue(REPO, issue).labels).toContain("awaiting-human");
    sim.comment(REPO, issue, "maintainer", "1");
    const [second] = await waitFor("round 1", () => (runs(out, 1).length > 0 ? runs(out, 1) : undefined));
    expect(second!.task).toContain('choosing option "Postgres"');
    expect(second!.task).not.toContain("renovate");
  });

  it("an ask marker posted by a human opens no gate and is not taken as a question", async () => {
    const { sim } = loop;
    const { issue, askId } = await askedGate();
    const askBody = sim.comments(REPO, issue).find((c) => c.id === askId)!.body;
    // An outsider and a maintainer both paste an ask marker: neither may open a gate.
    sim.addUser("stranger");
    const other = sim.createIssue(REPO, { title: "Another", body: "", author: "stranger" });
    sim.comment(REPO, other.number, "stranger", askBody);
    sim.comment(REPO, other.number, "maintainer", askBody);
    await quiet(loop);
    expect(sim.issue(REPO, other.number).labels).not.toContain("awaiting-human");
    const eyes = sim
      .comments(REPO, other.number)
      .flatMap((c) => c.reactions)
      .filter((r) => r.content === "eyes");
    expect(eyes).toHaveLength(0);
  });
});
