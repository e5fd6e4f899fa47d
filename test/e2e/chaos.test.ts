import { beforeAll, describe, expect, it } from "vitest";
import { shortPlans } from "../../tools/chaos/plan.js";
import { runSuite } from "../../tools/chaos/suite.js";
import { ensureBuilt } from "../support/build.js";

/**
 * The short fault-injection suite (`npm run chaos -- --short`): the whole loop with the app as a
 * child process, redis-server with its append-only file and the GitHub simulator, under every fault
 * kind. The full randomized suite is `npm run chaos -- --runs 100`.
 */
describe("fault injection: the short chaos suite", () => {
  beforeAll(async () => {
    await ensureBuilt(); // the runs start `node dist/main.js`
  }, 120_000);

  it("loses no gate, answers and resumes each question exactly once, and leaves no agent behind", async () => {
    const report = await runSuite({ short: true, concurrency: 3 });
    const failures = report.results.filter((r) => r.outcome !== "ok").map((r) => `run ${r.index} (${r.faults}): ${r.violations.join("; ")} (logs: ${r.dir})`);
    expect(failures).toEqual([]);
    expect(report.summary.runs).toBe(shortPlans().length);
    for (const kind of Object.keys(report.summary.faultsByKind)) expect(report.summary.faultsByKind[kind], kind).toBeGreaterThan(0);
  }, 420_000);
});
