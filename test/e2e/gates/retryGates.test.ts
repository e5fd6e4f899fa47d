import { afterEach, describe, expect, it } from "vitest";
import { Gates, waitFor } from "./support.js";

/** Issue 3 (its "bounded ladders"): attempts and rounds run out into a gate the app itself asks. Not the reminder ladder. */
describe("gates: retry limits", { timeout: 90_000 }, () => {
  let g: Gates | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  it("an agent failing AGENT_MAX_ATTEMPTS times opens an attempts_exhausted gate; 'retry' grants the attempts again, 'give up' ends it", async () => {
    g = await Gates.start("fail", { AGENT_MAX_ATTEMPTS: "2" });
    const issue = g.dispatch("Always fails");
    const first = await g.gate(issue);
    expect(first.comment.user.login).toBe(g.sim.botLogin);
    expect(first.ask.kind).toBe("attempts_exhausted");
    expect(first.ask.questions).toEqual([{ text: "The agent failed 2 time(s) in round 0. Retry?", options: ["retry", "give up"] }]);
    expect(first.ask.context).toContain("something broke\nlast line of output");
    expect(first.comment.body).toContain("1. retry\n2. give up");
    expect(first.comment.body).toContain("last line of output");
    expect(g.runs(issue, 0)).toHaveLength(2);
    await g.statusLine(issue, "attempts exhausted: asking a human whether to retry");
    const status = g.statusBody(issue);
    // The output's fence closes on its own line, so the rest of the status comment is not swallowed as code.
    expect(status).toMatch(
      /round 0: agent failed \(exit 3\) after \d+s · attempt 1 of 2; retrying with backoff\n\n {2}```text\n {2}something broke\n {2}last line of output\n {2}```\n/,
    );
    expect(status).not.toMatch(/``` ·/);
    expect(status).toContain("attempts exhausted: asking a human whether to retry");

    const retry = g.comment(issue, "maintainer", "retry");
    const second = await g.gate(issue, { count: 2 });
    expect(second.ask.kind).toBe("attempts_exhausted");
    expect(second.ask.questions[0]!.text).toBe("The agent failed 2 time(s) in round 1. Retry?");
    expect(g.runs(issue, 1)).toHaveLength(2);
    const [again] = g.runs(issue, 1);
    expect(again!.task).toContain("### Round 0: the app (attempts_exhausted) asked");
    expect(again!.task).toMatch(/Answer from human @maintainer at \S+ \(\S+\), choosing option "retry":/);
    await g.resumedWith(retry.id, issue);

    g.comment(issue, "maintainer", "2");
    await g.statusLine(issue, "@maintainer chose not to retry; the agent is not re-run");
    await waitFor("label removed", () => !g!.labels(issue).includes("awaiting-human"));
    await g.quiet();
    expect(g.runs(issue)).toHaveLength(4);
    expect(g.asks(issue)).toHaveLength(2);
  });

  it("reaching MAX_ROUNDS opens a rounds_exhausted gate; 'retry' grants more rounds", async () => {
    g = await Gates.start("ask-every", { MAX_ROUNDS: "2" });
    const issue = g.dispatch("Loops forever");
    await g.gate(issue);
    g.comment(issue, "maintainer", "1");
    await g.run(issue, 1);
    await g.gate(issue, { count: 2 });
    g.comment(issue, "maintainer", "2");

    const limit = await g.gate(issue, { count: 3 });
    expect(limit.comment.user.login).toBe(g.sim.botLogin);
    expect(limit.ask.kind).toBe("rounds_exhausted");
    expect(limit.ask.questions).toEqual([{ text: "The agent has used 2 rounds on this issue, the limit. Run more rounds?", options: ["retry", "give up"] }]);
    await g.quiet();
    expect(g.runs(issue, 2)).toEqual([]);

    g.comment(issue, "admin", "retry, but this is the last time");
    const more = await g.run(issue, 2);
    expect(more.task).toContain("the app (rounds_exhausted) asked");
    expect(more.task).toMatch(/Answer from human @admin at \S+ \(\S+\), choosing option "retry":/);
    expect(g.runs(issue)).toHaveLength(3);
  });
});
