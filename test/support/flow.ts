import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseAskComment } from "../../src/protocol/ask.js";
import { REPO, waitFor, type Loop } from "./harness.js";

const AGENT = resolve("test/support/agents/recording-agent.mjs");

/** AGENT_COMMAND for the recording agent (asks in round 0), and the directory it records into. */
export function recordingAgent(): { out: string; env: Record<string, string> } {
  const out = mkdtempSync(join(tmpdir(), "esc-e2e-"));
  return { out, env: { AGENT_COMMAND: JSON.stringify([process.execPath, AGENT, out, "{round}", "ask"]) } };
}

export interface AgentRun {
  startedAt: number;
  task: string;
  env: Record<string, string>;
}

export function agentRuns(dir: string, round: number): AgentRun[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(`round-${round}-`))
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as AgentRun);
}

/** Opens an issue, dispatches the agent and waits until its question is a registered gate (the label: its one write). */
export async function askedGate(loop: Loop, title = "Add a cache"): Promise<{ issue: number; gateId: string; dispatchedAt: number; registeredAt: number }> {
  const { sim } = loop;
  const issue = sim.createIssue(REPO, { title, body: "Cache the expensive lookups.", author: "maintainer" });
  const dispatchedAt = Date.now();
  sim.comment(REPO, issue.number, "maintainer", "/agent");
  const ask = await waitFor("the agent's ask comment", () =>
    sim.comments(REPO, issue.number).find((c) => c.user.login === sim.botLogin && parseAskComment(c.body) !== undefined),
  );
  await waitFor("the awaiting-human label", () => sim.issue(REPO, issue.number).labels.includes("awaiting-human"));
  const registeredAt = Date.now();
  await waitFor("the gate in Redis", () => loop.app.services.gates.getGate(String(ask.id)));
  return { issue: issue.number, gateId: String(ask.id), dispatchedAt, registeredAt };
}
