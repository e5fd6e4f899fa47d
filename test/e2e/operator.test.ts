import { execFile, type ExecFileException } from "node:child_process";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/config/projectRoot.js";
import { ensureBuilt } from "../support/build.js";
import { agentRuns, askedGate, recordingAgent } from "../support/flow.js";
import { REPO, startLoop, waitFor, type Loop } from "../support/harness.js";

const BIN = join(projectRoot, "bin", "escalate");
const METRICS_TOKEN = "operator-metrics-token-0123456789";

let loop: Loop;
let out: string;
let maintainerToken: string;

beforeAll(async () => {
  const agent = recordingAgent();
  out = agent.out;
  [, loop] = await Promise.all([ensureBuilt(), startLoop({ ...agent.env, METRICS_TOKEN })]);
  // The operator's own account on the simulated GitHub.
  maintainerToken = loop.sim.addUser("operator").token;
  loop.sim.setPermission(REPO, "operator", "maintain");
}, 120_000);
afterAll(async () => {
  await loop?.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real bin/escalate, as an operator runs it: the app's Redis and their own GitHub token. */
function escalate(args: string[]): Promise<Run> {
  const env = {
    PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter),
    REDIS_URL: loop.config.redisUrl,
    REDIS_PREFIX: loop.config.redisPrefix,
    GITHUB_TOKEN: maintainerToken,
    GITHUB_API_URL: loop.sim.apiUrl,
  };
  return new Promise((resolve) => {
    execFile(BIN, args, { env, cwd: projectRoot, timeout: 20_000 }, (error: ExecFileException | null, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe("operator surfaces against the running loop: escalate status, escalate answer, /metrics, /healthz", () => {
  it("status lists the agent's open gate; answer posts the operator's choice on the issue and the agent resumes with it", async () => {
    const { issue, gateId } = await askedGate(loop);

    const json = await escalate(["status", "--json"]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      gates: Array<{ id: string; repo: string; issue: number; title: string; questions: Array<{ options: string[] }> }>;
      counts: { open: number };
    };
    expect(report.counts.open).toBe(1);
    expect(report.gates[0]).toMatchObject({ id: gateId, repo: REPO, issue, title: "Add a cache", questions: [{ options: ["Postgres", "SQLite"] }] });

    const table = await escalate(["status"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(`^${gateId}\\s+${REPO}#${issue}\\s+question\\s+\\d+s\\s+-\\s+${loop.sim.url}/${REPO}/issues/${issue}#issuecomment-${gateId}$`, "m"),
    );
    expect(table.stdout).toContain("1) Postgres  2) SQLite");

    const answered = await escalate(["answer", gateId, "--choice", "2"]);
    expect(answered).toMatchObject({ code: 0, stderr: "" });
    const reply = loop.sim.comments(REPO, issue).find((c) => c.user.login === "operator");
    expect(reply?.body).toBe("2");
    expect(answered.stdout).toBe(`${reply!.html_url}\n`);

    const [run] = await waitFor("round 1", () => (agentRuns(out, 1).length > 0 ? agentRuns(out, 1) : undefined));
    expect(run!.task).toContain('choosing option "SQLite"');
    expect(run!.task).toContain("@operator");

    const again = await escalate(["answer", gateId, "--choice", "1"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      new RegExp(`^escalate: Gate ${gateId} on ${REPO}#${issue} is (answered|resuming|resumed) \\(answered by @operator\\); there is nothing to answer\\.`),
    );
    expect((await escalate(["status"])).stdout).toContain("No open gates.");
  });

  it("the app's /metrics (behind METRICS_TOKEN) counted that round with the process metrics, and /healthz sees Redis and the queues", async () => {
    const metric = async (line: RegExp) => {
      const text = await (await fetch(`${loop.app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      return line.exec(text);
    };
    const anonymous = await fetch(`${loop.app.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain("/metrics needs Authorization: Bearer <METRICS_TOKEN>");
    // Round 1's agent exits right after it starts: two successful runs (round 0 and round 1).
    await waitFor("both rounds' outcomes", () => metric(/^escalation_spawn_outcomes_total\{outcome="success"\} 2$/m));
    expect(await metric(/^escalation_gates_opened_total 1$/m)).toBeTruthy();
    expect(await metric(/^escalation_answers_total\{source="human"\} 1$/m)).toBeTruthy();
    expect(await metric(/^escalation_ask_to_answer_seconds_count\{source="human"\} 1$/m)).toBeTruthy();
    expect(await metric(/^escalation_trigger_to_spawn_seconds_count\{trigger="answer"\} 1$/m)).toBeTruthy();
    expect(await metric(/^escalation_trigger_to_spawn_seconds_count\{trigger="dispatch"\} 1$/m)).toBeTruthy();
    expect(await metric(/^escalation_trigger_to_spawn_seconds_count\{trigger="default"\}/m)).toBeNull();
    expect(await metric(/^process_cpu_seconds_total \d/m)).toBeTruthy();
    expect(await metric(/^nodejs_heap_size_total_bytes \d/m)).toBeTruthy();
    expect(await metric(/^escalation_open_gates 0$/m)).toBeTruthy();
    const queued = await metric(/^escalation_webhook_deliveries_total\{event="issue_comment",result="queued"\} (\d+)$/m);
    expect(Number(queued?.[1])).toBeGreaterThanOrEqual(3); // /agent, the ask, the operator's answer
    const health = await fetch(`${loop.app.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, redis: "ok", queues: { inbound: { failed: 0 }, spawn: { failed: 0 } } });
  });

  it("exits 2 on bad usage and 1 for an unknown gate", async () => {
    const usage = await escalate(["answer", "123"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Give exactly one of --choice N, --text TEXT, --defaults or --raw JSON");
    expect(usage.stderr).toContain("Usage: escalate answer GATE (--choice N | --text TEXT | --defaults | --raw JSON)");
    const unknown = await escalate(["answer", "123", "--text", "hi"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(`escalate: No gate "123" in Redis (prefix "${loop.config.redisPrefix}"); \`escalate status\` lists the open ones.\n`);
  });
});
