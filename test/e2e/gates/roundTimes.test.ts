import { afterEach, describe, expect, it } from "vitest";
import { parseStatusComment } from "../../../src/status/statusComment.js";
import { afterSecondOf, Gates, REPO, waitFor } from "./support.js";
import { sealFor } from "../../support/seal.js";
import { WEBHOOK_SECRET } from "../../support/harness.js";

async function metricsText(g: Gates): Promise<string> {
  return (await fetch(`${g.loop.app.url}/metrics`)).text();
}

/** Issue 9, "Human time is not agent time": per round, the status comment and metrics keep the two apart. */
describe("gates: human wait and agent run time per round", { timeout: 60_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("the status comment tabulates each round's human wait (ask → answer) and agent run (spawn → exit); its record survives a Redis wipe; metrics have both", async () => {
    g = await Gates.start("ask");
    const { issue, comment: ask } = await g.asked("Timed");
    // A note makes the issue's status comment appear; from then on each round's end keeps it current.
    g.comment(issue, "maintainer", "/note keep it small");
    await g.statusLine(issue, "note");
    // A human wait of at least a second, in GitHub's whole-second timestamps.
    await afterSecondOf(ask.created_at);
    const answer = g.comment(issue, "maintainer", "SQLite");
    await g.resumedWith(answer.id, issue);
    await g.statusLine(issue, "round 1: agent finished");
    // The table and the record: a new status comment gets its record in a second write, once its id is known.
    const body = await waitFor("the table's round 1 and its record", () => {
      const shown = g!.statusBody(issue);
      return /^\| 1 \| /m.test(shown) && (parseStatusComment(shown, sealFor(WEBHOOK_SECRET, issue))?.rounds?.length ?? 0) >= 2 ? shown : undefined;
    });

    expect(body).toContain("| Round | Human wait (ask → answer) | Agent run (spawn → exit) |");
    expect(body).toMatch(/^\| 0 \| — \(dispatched\) \| \d+s, finished \|$/m);
    const [, wait] = /^\| 1 \| (\d+)s \(@maintainer\) \| \d+s, finished \|$/m.exec(body) ?? [];
    expect(Number(wait)).toBeGreaterThanOrEqual(1);
    expect(body).toMatch(/^\| \*\*all\*\* \| \*\*\d+s\*\* \| \*\*\d+s\*\* \|$/m);
    const rounds = parseStatusComment(body, sealFor(WEBHOOK_SECRET, issue))?.rounds;
    expect(rounds).toEqual([
      expect.objectContaining({ round: 0, outcome: "success" }),
      expect.objectContaining({ round: 1, outcome: "success", gate: String(ask.id), answeredBy: "maintainer", waitMs: expect.any(Number) }),
    ]);
    expect(rounds![1]!.waitMs).toBeGreaterThanOrEqual(1000);

    const metrics = await metricsText(g);
    expect(metrics).toMatch(/^escalation_agent_run_seconds_count\{outcome="success"\} 2$/m);
    expect(metrics).toMatch(/^escalation_ask_to_answer_seconds_count\{source="human"\} 1$/m);

    await g.loop.wipeRedis();
    await g.loop.restart();
    const restored = await waitFor("the timings rebuilt from the status comment", async () => {
      const timings = await g!.loop.app.services.rounds.roundTimings({ repo: REPO, issue });
      return timings.length === 2 ? timings : undefined;
    });
    expect(restored.map((t) => [t.round, t.waitMs === undefined])).toEqual([
      [0, true],
      [1, false],
    ]);
  });
});
